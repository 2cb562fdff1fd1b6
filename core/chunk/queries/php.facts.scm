; PHP: outbound calls, routes, references and bindings.

; ---- bindings -----------------------------------------------------------
(assignment_expression left: (variable_name) @bind.name right: (_) @bind.value)
(property_element name: (variable_name) @bind.name default_value: (_) @bind.value)
(const_element (name) @bind.name (_) @bind.value)

; ---- HTTP clients -------------------------------------------------------
; curl_init($url), file_get_contents($url)
((function_call_expression function: (name) @_fn arguments: (arguments . (argument) @http.url))
 @http
 (#match? @_fn "^(curl_init|file_get_contents|fopen)$") (#set! system "php-http"))
; Guzzle / Symfony HttpClient: $client->request('GET', $url), $client->get($url)
((member_call_expression object: (_) @http.client name: (name) @_fn arguments: (arguments . (argument) @http.verb . (argument) @http.url))
 @http
 (#eq? @_fn "request") (#set! system "guzzle"))
((member_call_expression object: (_) @http.client name: (name) @http.verb arguments: (arguments . (argument) @http.url))
 @http
 (#match? @http.verb "^(get|post|put|delete|patch|head|options)$") (#set! system "guzzle"))

; ---- databases and caches -----------------------------------------------
; new PDO($dsn, ...), new mysqli($host, ...), new Redis(), new MongoDB\Client($uri)
((object_creation_expression [(name) (qualified_name)] @_cls (arguments . (argument) @dsn))
 @db
 (#match? @_cls "(^|\\\\)(PDO|mysqli)$") (#set! system "sql"))
((object_creation_expression [(name) (qualified_name)] @_cls (arguments . (argument) @dsn))
 @db
 (#match? @_cls "MongoDB\\\\Client$") (#set! system "mongodb"))

; ---- routes -------------------------------------------------------------
; Laravel: Route::get('/x', ...)
((scoped_call_expression scope: (name) @_r name: (name) @route.verb arguments: (arguments . (argument (string) @route.path)))
 @route
 (#eq? @_r "Route") (#match? @route.verb "^(get|post|put|delete|patch|options|any)$") (#set! framework "laravel"))
; Symfony attributes: #[Route('/x', methods: ['GET'])]
((method_declaration
   attributes: (attribute_list (attribute_group (attribute [(name) (qualified_name)] @_a
     parameters: (arguments . (argument (string) @route.path) (argument name: (name) @_m (array_creation_expression) @route.verb)))))
   name: (name) @route.handler)
 @route
 (#match? @_a "Route$") (#eq? @_m "methods") (#set! framework "symfony"))
((method_declaration
   attributes: (attribute_list (attribute_group (attribute [(name) (qualified_name)] @_a parameters: (arguments . (argument (string) @route.path)))))
   name: (name) @route.handler)
 @route
 (#match? @_a "Route$") (#set! framework "symfony"))

; ---- references ---------------------------------------------------------
(function_call_expression function: [(name) (qualified_name)] @ref.call)
(member_call_expression name: (name) @ref.call)
(scoped_call_expression name: (name) @ref.call)
(object_creation_expression [(name) (qualified_name)] @ref.type)
