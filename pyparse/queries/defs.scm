; Function and class definitions (methods and nested functions included).
(function_definition
  name: (identifier) @func.name) @func

(class_definition
  name: (identifier) @class.name) @class
