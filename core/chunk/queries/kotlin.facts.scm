; Kotlin: outbound calls, routes and bindings (Spring, Ktor).

; ---- bindings -----------------------------------------------------------
(property_declaration (variable_declaration (identifier) @bind.name) . (_) @bind.value)

; ---- HTTP clients -------------------------------------------------------
; RestTemplate: rest.getForObject("http://x/y", T::class.java), rest.getForObject<T>(url)
((call_expression
   (navigation_expression (_) @http.client . (identifier) @http.verb .)
   (type_arguments)?
   (value_arguments . (value_argument . (_) @http.url .)))
 @http
 (#match? @http.verb "^(getForObject|getForEntity|postForObject|postForEntity|postForLocation|put|patchForObject|delete)$")
 (#set! system "RestTemplate"))
; WebClient: webClient.get().uri("/x")
((call_expression
   (navigation_expression
     (call_expression (navigation_expression (_) @http.client . (identifier) @http.verb .) (value_arguments))
     . (identifier) @_uri .)
   (value_arguments . (value_argument . (_) @http.url .)))
 @http
 (#match? @http.verb "^(get|post|put|delete|patch|head)$") (#eq? @_uri "uri") (#set! system "WebClient"))
; WebClient.builder().baseUrl("http://x")
((call_expression
   (navigation_expression (_) . (identifier) @_fn .)
   (value_arguments . (value_argument . (_) @client.base)))
 @client
 (#eq? @_fn "baseUrl") (#set! system "WebClient"))
; Ktor's HttpClient: client.get("http://x/y"), client.post(url) { ... }
((call_expression
   (navigation_expression (_) @http.client . (identifier) @http.verb .)
   (value_arguments . (value_argument . (_) @http.url .)))
 @http
 (#match? @http.verb "^(get|post|put|delete|patch|head)$") (#match? @http.client "(?i)(client|http)$") (#set! system "ktor"))

; ---- queues -------------------------------------------------------------
((call_expression
   (navigation_expression (_) @_t . (identifier) @_fn .)
   (value_arguments . (value_argument . (_) @topic .)))
 @publish
 (#match? @_t "(?i)(kafkatemplate|template|producer)$") (#eq? @_fn "send") (#set! system "kafka"))
((annotation (constructor_invocation (user_type (identifier) @_a)
   (value_arguments (value_argument (identifier) @_k . (_) @topic))))
 @subscribe
 (#eq? @_a "KafkaListener") (#match? @_k "^(topics|topicPattern)$") (#set! system "kafka"))
((annotation (constructor_invocation (user_type (identifier) @_a)
   (value_arguments (value_argument (identifier) @_k . (_) @topic))))
 @subscribe
 (#eq? @_a "RabbitListener") (#eq? @_k "queues") (#set! system "rabbitmq"))

; ---- routes -------------------------------------------------------------
; Spring: @RequestMapping("/x") on the class (when the grammar attaches
; it: see kotlinClassPrefixes), @GetMapping("/y") on functions
(class_declaration
  (modifiers (annotation (constructor_invocation (user_type (identifier) @_a)
    (value_arguments . (value_argument . (string_literal) @prefix.path)))))
  (#eq? @_a "RequestMapping")) @prefix @prefix.scope
(function_declaration
  (modifiers (annotation (constructor_invocation (user_type (identifier) @route.verb)
    (value_arguments . (value_argument . (_) @route.path .)))))
  name: (identifier) @route.handler
  (#match? @route.verb "^(Get|Post|Put|Delete|Patch)Mapping$") (#set! framework "spring")) @route
(function_declaration
  (modifiers (annotation (constructor_invocation (user_type (identifier) @route.verb)
    (value_arguments (value_argument (identifier) @_k . (_) @route.path)))))
  name: (identifier) @route.handler
  (#match? @route.verb "^(Get|Post|Put|Delete|Patch)Mapping$") (#match? @_k "^(value|path)$") (#set! framework "spring")) @route
(function_declaration
  (modifiers (annotation (user_type (identifier) @route.verb)))
  name: (identifier) @route.handler
  (#match? @route.verb "^(Get|Post|Put|Delete|Patch)Mapping$") (#set! framework "spring")) @route
; @RequestMapping on a function: ("/y"), (value = ["/y"]), (path = ...),
; with method = [RequestMethod.X] in either order, else every method
(function_declaration
  (modifiers (annotation (constructor_invocation (user_type (identifier) @_a)
    (value_arguments . (value_argument . (_) @route.path .)))))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#set! framework "spring")) @route
(function_declaration
  (modifiers (annotation (constructor_invocation (user_type (identifier) @_a)
    (value_arguments (value_argument (identifier) @_k . (_) @route.path)))))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#match? @_k "^(value|path)$") (#set! framework "spring")) @route
(function_declaration
  (modifiers (annotation (constructor_invocation (user_type (identifier) @_a)
    (value_arguments
      (value_argument (identifier) @_k . (_) @route.path)
      (value_argument (identifier) @_m . (_) @route.verb)))))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#match? @_k "^(value|path)$") (#eq? @_m "method") (#set! framework "spring")) @route
(function_declaration
  (modifiers (annotation (constructor_invocation (user_type (identifier) @_a)
    (value_arguments
      (value_argument (identifier) @_m . (_) @route.verb)
      (value_argument (identifier) @_k . (_) @route.path)))))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#match? @_k "^(value|path)$") (#eq? @_m "method") (#set! framework "spring")) @route
; Ktor: routing { route("/api") { get("/x") { ... } } }
((call_expression
   (call_expression (identifier) @_r (value_arguments . (value_argument . (string_literal) @prefix.path)))
   (annotated_lambda) @prefix.scope)
 @prefix
 (#eq? @_r "route"))
((call_expression
   (call_expression (identifier) @route.verb (value_arguments . (value_argument . (string_literal) @route.path)))
   (annotated_lambda) @route.handler)
 @route
 (#match? @route.verb "^(get|post|put|delete|patch|head|options)$") (#match? @route.path "^\"/") (#set! framework "ktor"))
((call_expression
   (identifier) @route.verb
   (annotated_lambda) @route.handler)
 @route
 (#match? @route.verb "^(get|post|put|delete|patch)$") (#set! framework "ktor"))

; ---- constructors: what a class's properties are given ----------------
; class BillingClient(private val baseUrl: String): a property set from the
; constructor parameter of its name; BillingClient(url) (a call of a
; capitalized name) is what the constructor is given. The service graph
; follows an address held in a property to the argument its callers pass.
(class_declaration
  name: (_) @ctorp.class
  (primary_constructor (class_parameters (class_parameter (identifier) @ctorp.param) @ctorp.prop) @ctorp.params))
((call_expression (identifier) @ctor.name (value_arguments (value_argument)) @ctor.args)
 (#match? @ctor.name "^[A-Z][A-Za-z0-9]*$"))
