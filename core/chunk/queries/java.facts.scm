; Java: outbound calls, routes, references and bindings.

; ---- bindings -----------------------------------------------------------
(variable_declarator name: (identifier) @bind.name value: (_) @bind.value)

; ---- HTTP clients -------------------------------------------------------
; RestTemplate: rest.getForObject(url, T.class), postForEntity(url, body, T.class), delete(url)
((method_invocation object: (_) @http.client name: (identifier) @http.verb arguments: (argument_list . (_) @http.url))
 @http
 (#match? @http.verb "^(getForObject|getForEntity|postForObject|postForEntity|postForLocation|put|patchForObject|delete)$")
 (#set! system "RestTemplate"))
; rest.exchange(url, HttpMethod.GET, ...)
((method_invocation name: (identifier) @_fn arguments: (argument_list . (_) @http.url . (_) @http.verb))
 @http
 (#eq? @_fn "exchange") (#set! system "RestTemplate"))
; WebClient: webClient.get().uri("/x") ...
((method_invocation
   object: (method_invocation object: (_) @http.client name: (identifier) @http.verb)
   name: (identifier) @_uri
   arguments: (argument_list . (_) @http.url))
 @http
 (#match? @http.verb "^(get|post|put|delete|patch|head)$") (#eq? @_uri "uri") (#set! system "WebClient"))
; java.net.http: HttpRequest.newBuilder(URI.create("...")) / .uri(URI.create("..."))
((method_invocation object: (identifier) @_c name: (identifier) @_fn arguments: (argument_list . (method_invocation name: (identifier) @_create arguments: (argument_list . (_) @http.url))))
 @http
 (#eq? @_c "HttpRequest") (#eq? @_fn "newBuilder") (#eq? @_create "create") (#set! system "java.net.http"))
; JAX-RS client (javax/jakarta.ws.rs.client): client.target(url).path("x").request().get();
; core/chunk keeps it in files importing the JAX-RS client API and reads the
; path segments and the method from the chain or the variables it is held in.
((method_invocation object: (_) @http.client name: (identifier) @_fn arguments: (argument_list . (_) @http.url))
 @http
 (#eq? @_fn "target") (#set! system "jax-rs"))
; Apache HttpClient (4 and 5): new HttpGet(url), new HttpPost(url), ...
((object_creation_expression type: (type_identifier) @http.verb arguments: (argument_list . (_) @http.url))
 @http
 (#match? @http.verb "^Http(Get|Post|Put|Delete|Patch|Head|Options)$") (#set! system "apache-httpclient"))
; OkHttp: new Request.Builder().url(url).post(body).build(); core/chunk keeps it
; in files importing okhttp3 and reads the method from the builder chain.
((method_invocation name: (identifier) @_fn arguments: (argument_list . (_) @http.url .))
 @http
 (#eq? @_fn "url") (#set! system "okhttp"))
; WebClient.create("http://...") / WebClient.builder().baseUrl(...)
((method_invocation name: (identifier) @_fn arguments: (argument_list . (_) @client.base))
 @client
 (#eq? @_fn "baseUrl") (#set! system "WebClient"))

; ---- gRPC ---------------------------------------------------------------
((method_invocation object: (identifier) @grpc.service name: (identifier) @_fn arguments: (argument_list . (_)))
 @grpc
 (#match? @grpc.service "Grpc$") (#match? @_fn "^new(Blocking|Future)?Stub$") (#set! system "grpc"))
((method_invocation object: (identifier) @_c name: (identifier) @_fn arguments: (argument_list . (_) @grpc.target))
 @grpc
 (#eq? @_c "ManagedChannelBuilder") (#match? @_fn "^(forTarget|forAddress)$") (#set! system "grpc"))

; ---- queues -------------------------------------------------------------
((method_invocation object: (_) @_t name: (identifier) @_fn arguments: (argument_list . (_) @topic))
 @publish
 (#match? @_t "(?i)(kafkatemplate|template|producer)$") (#eq? @_fn "send") (#set! system "kafka"))
((annotation name: (identifier) @_a arguments: (annotation_argument_list (element_value_pair key: (identifier) @_k value: (_) @topic)))
 @subscribe
 (#eq? @_a "KafkaListener") (#match? @_k "^(topics|topicPattern)$") (#set! system "kafka"))
((annotation name: (identifier) @_a arguments: (annotation_argument_list (element_value_pair key: (identifier) @_k value: (_) @topic)))
 @subscribe
 (#eq? @_a "RabbitListener") (#eq? @_k "queues") (#set! system "rabbitmq"))
((method_invocation object: (_) @_t name: (identifier) @_fn arguments: (argument_list . (_) @topic))
 @publish
 (#match? @_t "(?i)rabbittemplate$") (#eq? @_fn "convertAndSend") (#set! system "rabbitmq"))

; ---- databases and caches -----------------------------------------------
((method_invocation object: (identifier) @_c name: (identifier) @_fn arguments: (argument_list . (_) @dsn))
 @db
 (#eq? @_c "DriverManager") (#eq? @_fn "getConnection") (#set! system "jdbc"))
((object_creation_expression type: (type_identifier) @_t arguments: (argument_list . (_) @dsn))
 @cache
 (#match? @_t "^(Jedis|JedisPool)$") (#set! system "redis"))

; ---- routes -------------------------------------------------------------
; Spring: @RequestMapping("/x") on the class, @GetMapping("/y") on methods
(class_declaration
  (modifiers (annotation name: (identifier) @_a arguments: (annotation_argument_list . (_) @prefix.path)))
  (#match? @_a "^(RequestMapping|Path)$")) @prefix @prefix.scope
(method_declaration
  (modifiers (annotation name: (identifier) @route.verb arguments: (annotation_argument_list . [(string_literal) (identifier) (field_access) (binary_expression) (element_value_array_initializer)] @route.path)))
  name: (identifier) @route.handler
  (#match? @route.verb "^(Get|Post|Put|Delete|Patch)Mapping$") (#set! framework "spring")) @route
; @PostMapping(value = "/y", consumes = "application/json"), (path = "/y")
(method_declaration
  (modifiers (annotation name: (identifier) @route.verb arguments: (annotation_argument_list (element_value_pair key: (identifier) @_k value: (_) @route.path))))
  name: (identifier) @route.handler
  (#match? @route.verb "^(Get|Post|Put|Delete|Patch)Mapping$") (#match? @_k "^(value|path)$") (#set! framework "spring")) @route
(method_declaration
  (modifiers (marker_annotation name: (identifier) @route.verb))
  name: (identifier) @route.handler
  (#match? @route.verb "^(Get|Post|Put|Delete|Patch)Mapping$") (#set! framework "spring")) @route
; @RequestMapping on a method: ("/y"), (value = "/y"), (path = "/y"); its
; method = RequestMethod.X in either order, else every method
(method_declaration
  (modifiers (annotation name: (identifier) @_a arguments: (annotation_argument_list . [(string_literal) (identifier) (field_access) (binary_expression)] @route.path)))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#set! framework "spring")) @route
(method_declaration
  (modifiers (annotation name: (identifier) @_a arguments: (annotation_argument_list (element_value_pair key: (identifier) @_k value: (_) @route.path))))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#match? @_k "^(value|path)$") (#set! framework "spring")) @route
(method_declaration
  (modifiers (annotation name: (identifier) @_a arguments: (annotation_argument_list
    (element_value_pair key: (identifier) @_k value: (_) @route.path)
    (element_value_pair key: (identifier) @_m value: (_) @route.verb))))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#match? @_k "^(value|path)$") (#eq? @_m "method") (#set! framework "spring")) @route
(method_declaration
  (modifiers (annotation name: (identifier) @_a arguments: (annotation_argument_list
    (element_value_pair key: (identifier) @_m value: (_) @route.verb)
    (element_value_pair key: (identifier) @_k value: (_) @route.path))))
  name: (identifier) @route.handler
  (#eq? @_a "RequestMapping") (#match? @_k "^(value|path)$") (#eq? @_m "method") (#set! framework "spring")) @route
; JAX-RS: @GET @Path("/y")
(method_declaration
  (modifiers (marker_annotation name: (identifier) @route.verb) (annotation name: (identifier) @_p arguments: (annotation_argument_list . (_) @route.path)))
  name: (identifier) @route.handler
  (#match? @route.verb "^(GET|POST|PUT|DELETE|PATCH|HEAD)$") (#eq? @_p "Path") (#set! framework "jax-rs")) @route
; gRPC: ServerBuilder...addService(new CartServiceImpl())
((method_invocation name: (identifier) @_fn arguments: (argument_list . (object_creation_expression type: (type_identifier) @route.grpc)))
 @route
 (#eq? @_fn "addService") (#set! framework "grpc"))

; ---- references ---------------------------------------------------------
(method_invocation name: (identifier) @ref.call)
(type_identifier) @ref.type

; ---- cloud SDK clients --------------------------------------------------
((object_creation_expression type: (type_identifier) @_cls) @sdk
 (#eq? @_cls "ServiceBusClientBuilder") (#set! system "azure-service-bus") (#set! kind "queue"))
((object_creation_expression type: (type_identifier) @_cls) @sdk
 (#eq? @_cls "CosmosClientBuilder") (#set! system "azure-cosmos-db") (#set! kind "db"))
((object_creation_expression type: (type_identifier) @_cls) @sdk
 (#match? @_cls "^(OpenAIClientBuilder)$") (#set! system "azure-openai") (#set! kind "http"))

; ---- constructors: what a class's fields are given --------------------
; this.baseUrl = baseUrl in a constructor (a field set from a parameter),
; and new CartHelper(url) (what a constructor is given): the service graph
; follows an address held in a field to the argument its callers pass.
(constructor_declaration
  name: (identifier) @ctorp.class
  parameters: (formal_parameters) @ctorp.params
  body: (constructor_body (expression_statement (assignment_expression left: (_) @ctorp.field right: (identifier) @ctorp.param))))
(object_creation_expression type: (_) @ctor.name arguments: (argument_list (_)) @ctor.args)
