; Kotlin: the file header (package, imports) and declarations.

(package_header (qualified_identifier) @package) @header
(import) @header
(file_annotation) @header
(import (qualified_identifier) @import)

(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(companion_object) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor) @definition.constructor
(property_declaration (variable_declaration (identifier) @name)) @definition.field
(type_alias type: (identifier) @name) @definition.type
