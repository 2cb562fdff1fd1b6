; TypeScript and TSX: everything of javascript.facts.scm (the loader
; appends it) plus NestJS controllers and type references.

; NestJS: @Controller("cart") class CartController { @Get(":id") find() {} }
(class_declaration
  decorator: (decorator (call_expression function: (identifier) @_c arguments: (arguments . (string) @prefix.path)))
  (#eq? @_c "Controller")) @prefix @prefix.scope
(export_statement
  decorator: (decorator (call_expression function: (identifier) @_c arguments: (arguments . (string) @prefix.path)))
  declaration: (class_declaration) @prefix.scope
  (#eq? @_c "Controller")) @prefix
(class_body
  (decorator (call_expression function: (identifier) @route.verb arguments: (arguments (string)? @route.path))) @route
  .
  (method_definition name: (property_identifier) @route.handler)
  (#match? @route.verb "^(Get|Post|Put|Delete|Patch|Head|Options|All)$") (#set! framework "nestjs"))

(type_identifier) @ref.type

; ---- constructors: parameter properties ------------------------------
; constructor(private readonly baseUrl: string): a field set from the
; parameter of its name.
(class_declaration
  name: (_) @ctorp.class
  body: (class_body (method_definition
    name: (property_identifier) @_ctor
    parameters: (formal_parameters (required_parameter (accessibility_modifier) pattern: (identifier) @ctorp.param) @ctorp.prop) @ctorp.params))
  (#eq? @_ctor "constructor"))
(class_declaration
  name: (_) @ctorp.class
  body: (class_body (method_definition
    name: (property_identifier) @_ctor
    parameters: (formal_parameters (required_parameter "readonly" pattern: (identifier) @ctorp.param) @ctorp.prop) @ctorp.params))
  (#eq? @_ctor "constructor"))
