; import a.b / import a.b as c
(import_statement) @import

; from a.b import c / from . import c as d / from a import *
(import_from_statement) @import_from

; from __future__ import x (kept so that the imports list is complete)
(future_import_statement) @import_from
