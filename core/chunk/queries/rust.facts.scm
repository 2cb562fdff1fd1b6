; Rust: references (what a chunk calls and which types it names).

(call_expression function: [(identifier) @ref.call
                            (field_expression field: (field_identifier) @ref.call)
                            (scoped_identifier name: (identifier) @ref.call)])
(macro_invocation macro: (identifier) @ref.call)
(type_identifier) @ref.type

; ---- routes -------------------------------------------------------------
; actix-web attribute macros: #[get("/x")] async fn handler(...)
(_
  (attribute_item
    (attribute [(identifier) @route.verb (scoped_identifier name: (identifier) @route.verb)]
      arguments: (token_tree . (string_literal) @route.path))) @route
  .
  (function_item name: (identifier) @route.handler)
  (#match? @route.verb "^(get|post|put|delete|patch|head|options)$")
  (#set! framework "actix-web"))
; actix-web: App::new().route("/x", web::get().to(handler))
((call_expression
   function: (field_expression field: (field_identifier) @_r)
   arguments: (arguments . (string_literal) @route.path .
     (call_expression
       function: (field_expression
         value: (call_expression function: (scoped_identifier name: (identifier) @route.verb))
         field: (field_identifier) @_to)
       arguments: (arguments . (_) @route.handler))))
 @route
 (#eq? @_r "route") (#eq? @_to "to") (#match? @route.verb "^(get|post|put|delete|patch|head)$")
 (#set! framework "actix-web"))
; axum: Router::new().route("/x", get(handler))
((call_expression
   function: (field_expression field: (field_identifier) @_r)
   arguments: (arguments . (string_literal) @route.path .
     (call_expression function: [(identifier) @route.verb (scoped_identifier name: (identifier) @route.verb)]
       arguments: (arguments . (_) @route.handler))))
 @route
 (#eq? @_r "route") (#match? @route.verb "^(get|post|put|delete|patch|head)$")
 (#set! framework "axum"))
