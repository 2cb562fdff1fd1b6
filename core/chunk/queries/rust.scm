; Rust: the file header (use declarations, extern crates) and items.

(use_declaration) @header
(use_declaration argument: (_) @import)
(extern_crate_declaration) @header

(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: [(type_identifier) @name
                  (generic_type type: (type_identifier) @name)
                  (scoped_type_identifier name: (type_identifier) @name)]) @definition.impl
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.struct
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.method
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.macro
