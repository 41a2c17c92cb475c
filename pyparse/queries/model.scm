; Everything the model is built from, in one query so the tree is walked once: the
; analyzers judge calls and definitions in Go.

; Every call expression.
(call
  function: (_) @callee
  arguments: (_) @args) @call

; Function and class definitions (methods and nested functions included).
(function_definition
  name: (identifier) @func.name) @func

(class_definition
  name: (identifier) @class.name) @class

; import a.b / import a.b as c
(import_statement) @import

; from a.b import c / from . import c as d / from a import *
(import_from_statement) @import_from

; from __future__ import x (kept so that the imports list is complete)
(future_import_statement) @import_from
