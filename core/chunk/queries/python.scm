; Python: the file header (module docstring, imports) and definitions.

(module . (expression_statement (string)) @header)
(import_statement) @header
(import_from_statement) @header
(future_import_statement) @header
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
(import_from_statement module_name: (_) @import)

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
