; PHP: the file header (namespace, use) and declarations.

(namespace_definition name: (namespace_name) @package) @header
(namespace_use_declaration) @header
(namespace_use_clause [(name) (qualified_name)] @import)

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.class
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(property_declaration (property_element name: (variable_name) @name)) @definition.field
(const_declaration (const_element (name) @name)) @definition.field
