; C#: outbound calls, routes, references and bindings.

; ---- bindings -----------------------------------------------------------
(variable_declarator name: (identifier) @bind.name (_) @bind.value .)

; ---- HTTP clients -------------------------------------------------------
; _http.GetAsync(url), client.PostAsJsonAsync(url, body), http.GetFromJsonAsync<T>(url)
((invocation_expression
   function: (member_access_expression expression: (_) @http.client name: [(identifier) (generic_name (identifier))] @http.verb)
   arguments: (argument_list . (argument (_) @http.url)))
 @http
 (#match? @http.verb "^(Get|Post|Put|Delete|Patch)(Async|FromJsonAsync|AsJsonAsync|StringAsync|StreamAsync|ByteArrayAsync)")
 (#set! system "HttpClient"))
; new HttpRequestMessage(HttpMethod.Post, url)
((object_creation_expression type: (identifier) @_t arguments: (argument_list . (argument (_) @http.verb) . (argument (_) @http.url)))
 @http
 (#eq? @_t "HttpRequestMessage") (#set! system "HttpClient"))
; base addresses: client.BaseAddress = new Uri(...), new HttpClient { BaseAddress = new Uri(...) }
((assignment_expression left: (_) @client.name right: (_) @client.base)
 @client
 (#match? @client.name "BaseAddress$") (#set! system "HttpClient"))
; Refit: RestService.For<ICatalogApi>("http://catalog") is that interface's client
((invocation_expression
   function: (member_access_expression expression: (identifier) @_rs name: (generic_name (identifier) @_for (type_argument_list . (_) @client.name)))
   arguments: (argument_list . (argument) @client.base))
 @client
 (#eq? @_rs "RestService") (#eq? @_for "For") (#set! system "Refit"))

; Dapr: dapr.InvokeMethodAsync<T>(HttpMethod.Get, "app", "method"), InvokeMethodAsync("app", "method", data),
; DaprClient.CreateInvokeHttpClient("app"), dapr.PublishEventAsync("pubsub", "topic", data)
((invocation_expression
   function: (member_access_expression name: [(identifier) (generic_name (identifier))] @_fn)
   arguments: (argument_list . (argument (member_access_expression) @dapr.verb) . (argument (_) @dapr.app) . (argument (_) @dapr.method)))
 @dapr.invoke
 (#match? @_fn "^(InvokeMethodAsync|InvokeMethodWithResponseAsync|CreateInvokeMethodRequest)") (#match? @dapr.verb "^HttpMethod\\."))
((invocation_expression
   function: (member_access_expression name: [(identifier) (generic_name (identifier))] @_fn)
   arguments: (argument_list . (argument (string_literal) @dapr.app) . (argument (_) @dapr.method)))
 @dapr.invoke
 (#match? @_fn "^(InvokeMethodAsync|InvokeMethodWithResponseAsync|CreateInvokeMethodRequest)") (#set! method "POST"))
((variable_declarator name: (identifier) @client.name
   (invocation_expression
     function: (member_access_expression name: (identifier) @_fn)
     arguments: (argument_list . (argument) @client.base)))
 @client
 (#eq? @_fn "CreateInvokeHttpClient") (#set! system "dapr"))
((invocation_expression
   function: (member_access_expression name: [(identifier) (generic_name (identifier))] @_fn)
   arguments: (argument_list . (argument) . (argument (_) @topic)))
 @publish
 (#eq? @_fn "PublishEventAsync") (#set! system "dapr"))
; Dapr subscription: [Topic("pubsub", "orders")] on an action, app.MapPost(...).WithTopic("pubsub", "orders")
((attribute name: (identifier) @_a (attribute_argument_list . (attribute_argument) . (attribute_argument (_) @topic)))
 @subscribe
 (#eq? @_a "Topic") (#set! system "dapr"))
((invocation_expression
   function: (member_access_expression name: (identifier) @_fn)
   arguments: (argument_list . (argument) . (argument (_) @topic)))
 @subscribe
 (#eq? @_fn "WithTopic") (#set! system "dapr"))

; ---- gRPC ---------------------------------------------------------------
((object_creation_expression type: [(qualified_name) (identifier)] @grpc.service arguments: (argument_list . (argument)))
 @grpc
 (#match? @grpc.service "Client$") (#not-match? @grpc.service "(?i)(http|redis|sql|mongo|servicebus|kafka|smtp|tcp|web)client$") (#set! system "grpc"))
((invocation_expression
   function: (member_access_expression expression: (identifier) @_c name: (identifier) @_fn)
   arguments: (argument_list . (argument (_) @grpc.target)))
 @grpc
 (#eq? @_c "GrpcChannel") (#eq? @_fn "ForAddress") (#set! system "grpc"))

; ---- queues -------------------------------------------------------------
; Confluent.Kafka: producer.ProduceAsync("topic", msg), consumer.Subscribe("topic")
((invocation_expression function: (member_access_expression name: (identifier) @_fn) arguments: (argument_list . (argument (_) @topic)))
 @publish
 (#match? @_fn "^(ProduceAsync|Produce)$") (#set! system "kafka"))
((invocation_expression function: (member_access_expression expression: (_) @_c name: (identifier) @_fn) arguments: (argument_list . (argument (_) @topic)))
 @subscribe
 (#match? @_c "(?i)consumer$") (#eq? @_fn "Subscribe") (#set! system "kafka"))
; RabbitMQ.Client: channel.BasicPublish(exchange, routingKey, ...), BasicConsume(queue, ...)
((invocation_expression function: (member_access_expression name: (identifier) @_fn) arguments: (argument_list . (argument) . (argument (_) @topic)))
 @publish
 (#match? @_fn "^BasicPublish(Async)?$") (#set! system "rabbitmq"))
((invocation_expression function: (member_access_expression name: (identifier) @_fn) arguments: (argument_list . (argument (_) @topic)))
 @subscribe
 (#match? @_fn "^BasicConsume(Async)?$") (#set! system "rabbitmq"))
; Azure Service Bus: client.CreateSender("queue"), CreateProcessor("queue")
((invocation_expression function: (member_access_expression name: (identifier) @_fn) arguments: (argument_list . (argument (_) @topic)))
 @publish
 (#eq? @_fn "CreateSender") (#set! system "servicebus"))
((invocation_expression function: (member_access_expression name: (identifier) @_fn) arguments: (argument_list . (argument (_) @topic)))
 @subscribe
 (#match? @_fn "^(CreateProcessor|CreateReceiver)$") (#set! system "servicebus"))
; Integration events on an event bus (the .NET microservices architecture
; guide's IEventBus, MassTransit, NServiceBus, Rebus): the event's type is
; the topic. An integration event is made to be published:
; new OrderStartedIntegrationEvent(...); bus.Publish(new OrderPlaced(...));
; bus.Publish<OrderPlaced>(...).
((object_creation_expression type: [(identifier) (qualified_name)] @topic.type)
 @publish
 (#match? @topic.type "IntegrationEvent$") (#set! system "eventbus"))
((invocation_expression
   function: (member_access_expression name: (identifier) @_fn)
   arguments: (argument_list . (argument (object_creation_expression type: [(identifier) (qualified_name)] @topic.type))))
 @publish
 (#match? @_fn "^Publish(Async)?$") (#not-match? @topic.type "IntegrationEvent$") (#set! system "eventbus"))
((invocation_expression
   function: (member_access_expression name: (generic_name (identifier) @_fn (type_argument_list . (_) @topic.type))))
 @publish
 (#match? @_fn "^Publish(Async)?$") (#set! system "eventbus"))
; Subscriptions: eventBus.AddSubscription<TEvent, THandler>(), Subscribe<TEvent, THandler>(),
; and handlers: class H : IIntegrationEventHandler<TEvent>, IConsumer<TEvent>
; (MassTransit), IHandleMessages<TEvent> (NServiceBus, Rebus).
((invocation_expression
   function: (member_access_expression name: (generic_name (identifier) @_fn (type_argument_list . (_) @topic.type))))
 @subscribe
 (#match? @_fn "^(AddSubscription|Subscribe)$") (#set! system "eventbus"))
((class_declaration
   (base_list (generic_name (identifier) @_i (type_argument_list . (_) @topic.type))))
 @subscribe
 (#match? @_i "^(IIntegrationEventHandler|IConsumer|IHandleMessages)$") (#set! system "eventbus"))

; ---- databases and caches -----------------------------------------------
; EF Core: options.UseNpgsql(cs), UseSqlServer(cs), UseMySql(cs, ...)
((invocation_expression function: (member_access_expression name: (identifier) @db.kind) arguments: (argument_list . (argument (_) @dsn)))
 @db
 (#match? @db.kind "^Use(Npgsql|SqlServer|MySql|Sqlite|Oracle|Cosmos)$") (#set! system "sql"))
((object_creation_expression type: (identifier) @db.kind arguments: (argument_list . (argument (_) @dsn)))
 @db
 (#match? @db.kind "^(SqlConnection|NpgsqlConnection|MySqlConnection|NpgsqlDataSource|MongoClient)$") (#set! system "sql"))
; StackExchange.Redis
((invocation_expression function: (member_access_expression expression: (identifier) @_c name: (identifier) @_fn) arguments: (argument_list . (argument (_) @dsn)))
 @cache
 (#eq? @_c "ConnectionMultiplexer") (#match? @_fn "^Connect(Async)?$") (#set! system "redis"))
; a store or cache class of the application wrapping Redis, given its
; address: new RedisCartStore(redisAddress)
((object_creation_expression type: (identifier) @_t arguments: (argument_list . (argument (_) @dsn)))
 @cache
 (#match? @_t "^Redis[A-Z][A-Za-z]*(Store|Cache|Client|Repository)$") (#set! system "redis"))

; ---- routes -------------------------------------------------------------
; attribute routing: [Route("api/cart")] class ... { [HttpGet("{id}")] ... }
(class_declaration
  (attribute_list (attribute name: (identifier) @_r (attribute_argument_list . (attribute_argument (string_literal) @prefix.path))))
  (#eq? @_r "Route")) @prefix @prefix.scope
(method_declaration
  (attribute_list (attribute name: (identifier) @route.verb (attribute_argument_list . (attribute_argument (string_literal) @route.path))?))
  name: (identifier) @route.handler
  (#match? @route.verb "^Http(Get|Post|Put|Delete|Patch|Head|Options)$") (#set! framework "aspnet")) @route
; minimal APIs: app.MapGet("/x", handler), group.MapPost(...), app.MapMethods("/x", new[] {"GET"}, h)
((invocation_expression
   function: (member_access_expression expression: (identifier) @route.router name: (identifier) @route.verb)
   arguments: (argument_list . (argument (string_literal) @route.path) . (argument) @route.handler))
 @route
 (#match? @route.verb "^Map(Get|Post|Put|Delete|Patch)$") (#set! framework "aspnet-minimal"))
((invocation_expression
   function: (member_access_expression expression: (identifier) @route.router name: (identifier) @_fn)
   arguments: (argument_list . (argument (string_literal) @route.path)))
 @route
 (#eq? @_fn "MapHealthChecks") (#set! framework "aspnet-minimal") (#set! method "GET"))
; var api = app.MapGroup("/api")
(variable_declarator name: (identifier) @router.name
  (invocation_expression
    function: (member_access_expression expression: (identifier) @router.parent name: (identifier) @_fn)
    arguments: (argument_list . (argument (string_literal) @router.prefix)))
  (#eq? @_fn "MapGroup")) @router
; gRPC services: app.MapGrpcService<CartService>()
((invocation_expression function: (member_access_expression name: (generic_name (identifier) @_fn (type_argument_list (_) @route.grpc))))
 @route
 (#eq? @_fn "MapGrpcService") (#set! framework "grpc"))

; ---- references ---------------------------------------------------------
(invocation_expression function: [(identifier) @ref.call (member_access_expression name: (identifier) @ref.call)])
(object_creation_expression type: (identifier) @ref.type)
(base_list (identifier) @ref.type)

; ---- cloud SDK clients --------------------------------------------------
((object_creation_expression type: [(identifier) (qualified_name)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)ServiceBusClient$") (#set! system "azure-service-bus") (#set! kind "queue"))
((object_creation_expression type: [(identifier) (qualified_name)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)CosmosClient$") (#set! system "azure-cosmos-db") (#set! kind "db"))
((object_creation_expression type: [(identifier) (qualified_name)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)AzureOpenAIClient$") (#set! system "azure-openai") (#set! kind "http"))
((object_creation_expression type: [(identifier) (qualified_name)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)(BlobServiceClient|QueueServiceClient)$") (#set! system "azure-storage") (#set! kind "http"))

; ---- constructors: what a class's fields are given --------------------
; _baseUrl = baseUrl / this.baseUrl = baseUrl in a constructor, and
; new CartClient(url): the service graph follows an address held in a
; field to the argument its callers pass.
(constructor_declaration
  name: (identifier) @ctorp.class
  parameters: (parameter_list) @ctorp.params
  body: (block (expression_statement (assignment_expression left: (_) @ctorp.field right: (identifier) @ctorp.param))))
(object_creation_expression type: (_) @ctor.name arguments: (argument_list (_)) @ctor.args)
