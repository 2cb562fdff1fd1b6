; JavaScript (and, through typescript.facts.scm, TypeScript): outbound
; calls, routes, references and bindings.

; ---- bindings -----------------------------------------------------------
(variable_declarator name: (identifier) @bind.name value: (_) @bind.value)
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @bind.import))) source: (string (string_fragment) @bind.from))
(import_statement (import_clause (named_imports (import_specifier alias: (identifier) @bind.import))) source: (string (string_fragment) @bind.from))
(import_statement (import_clause (identifier) @bind.import) source: (string (string_fragment) @bind.from))
(variable_declarator name: (identifier) @bind.import
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @bind.from)))
  (#eq? @_req "require"))

; Dapr: client.invoker.invoke("app", "method", HttpMethod.POST, body), client.pubsub.publish("pubsub", "topic", data)
((call_expression
   function: (member_expression object: (member_expression property: (property_identifier) @_inv) property: (property_identifier) @_fn)
   arguments: (arguments . (_) @dapr.app . (_) @dapr.method . (_)? @dapr.verb))
 @dapr.invoke
 (#eq? @_inv "invoker") (#eq? @_fn "invoke"))
((call_expression
   function: (member_expression object: (member_expression property: (property_identifier) @_ps) property: (property_identifier) @_fn)
   arguments: (arguments . (_) . (_) @topic))
 @publish
 (#eq? @_ps "pubsub") (#eq? @_fn "publish") (#set! system "dapr"))
; Dapr subscription: server.pubsub.subscribe("pubsub", "topic", handler)
((call_expression
   function: (member_expression object: (member_expression property: (property_identifier) @_ps) property: (property_identifier) @_fn)
   arguments: (arguments . (_) . (_) @topic))
 @subscribe
 (#eq? @_ps "pubsub") (#eq? @_fn "subscribe") (#set! system "dapr"))

; ---- HTTP clients -------------------------------------------------------
; fetch(url), fetch(url, { method: "POST" })
((call_expression function: (identifier) @_fn arguments: (arguments . (_) @http.url . (object)? @http.options))
 @http
 (#eq? @_fn "fetch") (#set! system "fetch"))
; axios.get(url), api.post(url, body), this.http.get(url) (NestJS HttpService), got.get, superagent.get
; core/chunk keeps such a call when its target is a URL or a path, or its
; client is an HTTP library or an axios.create instance of the same file.
; (tree-sitter-typescript parses `await api.get<T>(url)` with the await
; around the callee, hence the alternative.)
((call_expression
   function: [(member_expression object: (_) @http.client property: (property_identifier) @http.verb)
              (await_expression (member_expression object: (_) @http.client property: (property_identifier) @http.verb))]
   arguments: (arguments . (_) @http.url))
 @http
 (#match? @http.verb "^(get|post|put|delete|patch|head|options)$")
 (#set! system "axios"))
; axios({ method, url }) / axios.request({ method, url })
((call_expression function: [(identifier) (member_expression)] @_fn arguments: (arguments . (object) @http.options))
 @http
 (#match? @_fn "^axios(\\.request)?$") (#set! system "axios"))
; base URLs: const api = axios.create({ baseURL: ... })
((variable_declarator
   name: (identifier) @client.name
   value: (call_expression
     function: (member_expression object: (identifier) @_ax property: (property_identifier) @_fn)
     arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @client.base)))))
 @client
 (#eq? @_ax "axios") (#eq? @_fn "create") (#eq? @_k "baseURL") (#set! system "axios"))

; ---- gRPC ---------------------------------------------------------------
((new_expression constructor: [(identifier) (member_expression)] @grpc.service arguments: (arguments . (_) @grpc.target))
 @grpc
 (#match? @grpc.service "(Client|ServiceClient)$") (#not-match? @grpc.service "(?i)(http|kafka|redis|mongo|sqs|sns|s3|pg|ioredis|prisma|servicebus|cosmos|openai|azure|blob|eventhub|secret|keyclient|tableclient|searchclient|dynamodb|elastic)") (#set! system "grpc"))

; @grpc/grpc-js with loaded protos: new pkg.CartService(addr, grpc.credentials.createInsecure())
((new_expression constructor: (member_expression property: (property_identifier) @grpc.service)
   arguments: (arguments . (_) @grpc.target . (call_expression function: (member_expression object: (member_expression property: (property_identifier) @_cred)))))
 @grpc
 (#match? @grpc.service "Service$") (#eq? @_cred "credentials") (#set! system "grpc"))

; ---- queues -------------------------------------------------------------
; kafkajs: producer.send({ topic: "t", messages }), consumer.subscribe({ topic: "t" } | { topics: [...] })
((call_expression
   function: (member_expression property: (property_identifier) @_fn)
   arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @topic))))
 @publish
 (#match? @_fn "^(send|sendBatch)$") (#eq? @_k "topic") (#set! system "kafka"))
((call_expression
   function: (member_expression property: (property_identifier) @_fn)
   arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @topic))))
 @subscribe
 (#eq? @_fn "subscribe") (#match? @_k "^(topic|topics)$") (#set! system "kafka"))
; amqplib: ch.publish(exchange, key, ...), ch.sendToQueue(queue, ...), ch.consume(queue, ...)
((call_expression function: (member_expression object: (_) @_c property: (property_identifier) @_fn) arguments: (arguments . (_) . (_) @topic))
 @publish
 (#match? @_c "(?i)(channel|ch)$") (#eq? @_fn "publish") (#set! system "rabbitmq"))
((call_expression function: (member_expression object: (_) @_c property: (property_identifier) @_fn) arguments: (arguments . (_) @topic))
 @publish
 (#match? @_c "(?i)(channel|ch)$") (#eq? @_fn "sendToQueue") (#set! system "rabbitmq"))
((call_expression function: (member_expression object: (_) @_c property: (property_identifier) @_fn) arguments: (arguments . (_) @topic))
 @subscribe
 (#match? @_c "(?i)(channel|ch)$") (#eq? @_fn "consume") (#set! system "rabbitmq"))
; NATS: nc.publish("subj"), nc.subscribe("subj")
((call_expression function: (member_expression object: (_) @_c property: (property_identifier) @_fn) arguments: (arguments . (_) @topic))
 @publish
 (#match? @_c "(?i)^(nc|nats|conn|js)$") (#match? @_fn "^(publish|request)$") (#set! system "nats"))
((call_expression function: (member_expression object: (_) @_c property: (property_identifier) @_fn) arguments: (arguments . (_) @topic))
 @subscribe
 (#match? @_c "(?i)^(nc|nats|conn|js)$") (#eq? @_fn "subscribe") (#set! system "nats"))
; AWS SDK v3: new SendMessageCommand({ QueueUrl }), new PublishCommand({ TopicArn })
((new_expression constructor: (identifier) @_cmd arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @topic))))
 @publish
 (#match? @_cmd "^SendMessage(Batch)?Command$") (#eq? @_k "QueueUrl") (#set! system "sqs"))
((new_expression constructor: (identifier) @_cmd arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @topic))))
 @subscribe
 (#eq? @_cmd "ReceiveMessageCommand") (#eq? @_k "QueueUrl") (#set! system "sqs"))
((new_expression constructor: (identifier) @_cmd arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @topic))))
 @publish
 (#eq? @_cmd "PublishCommand") (#eq? @_k "TopicArn") (#set! system "sns"))
; Azure Service Bus: client.createSender("queue"), client.createReceiver("queue")
((call_expression function: (member_expression property: (property_identifier) @_fn) arguments: (arguments . (_) @topic))
 @publish
 (#eq? @_fn "createSender") (#set! system "servicebus"))
((call_expression function: (member_expression property: (property_identifier) @_fn) arguments: (arguments . (_) @topic))
 @subscribe
 (#eq? @_fn "createReceiver") (#set! system "servicebus"))

; BullMQ, Bull, Bee-Queue (job queues on Redis; core/chunk keeps them only in
; files that import one): new Queue("mail") adds jobs, new Worker("mail", fn)
; (BullMQ) runs them; Bull's and Bee-Queue's queue.process(fn) runs them
((new_expression constructor: (identifier) @_cls arguments: (arguments . (_) @topic))
 @publish
 (#match? @_cls "^(Queue|Bull|BeeQueue)$") (#set! system "bullmq"))
((call_expression function: (identifier) @_cls arguments: (arguments . (_) @topic))
 @publish
 (#match? @_cls "^(Queue|Bull)$") (#set! system "bullmq"))
((new_expression constructor: (identifier) @_cls arguments: (arguments . (_) @topic . (_)))
 @subscribe
 (#eq? @_cls "Worker") (#set! system "bullmq"))
; NestJS: @Processor("mail") class MailConsumer, @InjectQueue("mail") private queue: Queue
((decorator (call_expression function: (identifier) @_d arguments: (arguments . (_) @topic)))
 @subscribe
 (#eq? @_d "Processor") (#set! system "bullmq"))
((decorator (call_expression function: (identifier) @_d arguments: (arguments . (_) @topic)))
 @publish
 (#eq? @_d "InjectQueue") (#set! system "bullmq"))

; ---- databases and caches -----------------------------------------------
; new Pool({ connectionString }), new Client({ connectionString }) (pg)
((new_expression constructor: (identifier) @_cls
   arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @dsn))))
 @db
 (#match? @_cls "^(Pool|Client)$") (#eq? @_k "connectionString") (#set! system "postgres"))
((call_expression function: (member_expression object: (identifier) @_m property: (property_identifier) @_fn) arguments: (arguments . (_) @dsn))
 @db
 (#eq? @_m "mongoose") (#match? @_fn "^(connect|createConnection)$") (#set! system "mongodb"))
((new_expression constructor: (identifier) @_cls) @db (#eq? @_cls "PrismaClient") (#set! system "prisma"))
((call_expression function: (member_expression object: (identifier) @_m property: (property_identifier) @_fn) arguments: (arguments . (_) @dsn))
 @db
 (#match? @_m "^mysql2?$") (#match? @_fn "^(createPool|createConnection)$") (#set! system "mysql"))
; redis: createClient({ url }), new Redis(url) (ioredis)
((call_expression function: (identifier) @_fn arguments: (arguments . (object (pair key: (property_identifier) @_k value: (_) @dsn))))
 @cache
 (#eq? @_fn "createClient") (#eq? @_k "url") (#set! system "redis"))
((new_expression constructor: (identifier) @_cls arguments: (arguments . (_) @dsn))
 @cache
 (#match? @_cls "^(Redis|IORedis)$") (#set! system "redis"))

; ---- routes -------------------------------------------------------------
; Express, Fastify, koa-router: app.get("/x", h), router.post("/x", auth, h):
; the handler is the last argument, after any middleware
((call_expression
   function: (member_expression object: (identifier) @route.router property: (property_identifier) @route.verb)
   arguments: (arguments . (string) @route.path (_) @route.handler .))
 @route
 (#match? @route.verb "^(get|post|put|delete|patch|head|options|all)$")
 (#match? @route.path "^['\"]/") (#set! framework "express"))
; routers: const r = Router(), express.Router(), new Router({ prefix: "/x" })
(variable_declarator name: (identifier) @router.name
  value: (call_expression function: [(identifier) (member_expression)] @_fn)
  (#match? @_fn "(^|\\.)Router$")) @router
(variable_declarator name: (identifier) @router.name
  value: (new_expression constructor: (identifier) @_fn arguments: (arguments . (object (pair key: (property_identifier) @_k value: (string) @router.prefix))))
  (#eq? @_fn "Router") (#eq? @_k "prefix")) @router
; mounts: app.use("/api", router)
(call_expression
  function: (member_expression object: (identifier) @mount.into property: (property_identifier) @_fn)
  arguments: (arguments . (string) @mount.prefix . (identifier) @mount.router .)
  (#eq? @_fn "use")) @mount

; gRPC servers: server.addService(pkg.CartService.service, impl)
((call_expression function: (member_expression property: (property_identifier) @_fn)
   arguments: (arguments . (member_expression object: (member_expression property: (property_identifier) @route.grpc) property: (property_identifier) @_svc)))
 @route
 (#eq? @_fn "addService") (#eq? @_svc "service") (#set! framework "grpc"))

; ---- references ---------------------------------------------------------
(call_expression function: [(identifier) @ref.call (member_expression property: (property_identifier) @ref.call)])
(new_expression constructor: (identifier) @ref.type)

; ---- cloud SDK clients --------------------------------------------------
((new_expression constructor: [(identifier) (member_expression)] @_cls arguments: (arguments) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)ServiceBusClient$") (#set! system "azure-service-bus") (#set! kind "queue"))
((new_expression constructor: [(identifier) (member_expression)] @_cls arguments: (arguments) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)CosmosClient$") (#set! system "azure-cosmos-db") (#set! kind "db") (#set! kw "endpoint"))
((new_expression constructor: [(identifier) (member_expression)] @_cls arguments: (arguments) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)AzureOpenAI$") (#set! system "azure-openai") (#set! kind "http") (#set! kw "endpoint,baseURL"))
((new_expression constructor: [(identifier) (member_expression)] @_cls arguments: (arguments) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)OpenAI$") (#set! system "api.openai.com") (#set! kind "http") (#set! kw "baseURL") (#set! default "https://api.openai.com/v1"))

; ---- constructors: what a class's fields are given --------------------
; this.baseUrl = baseUrl in a constructor, and new CartClient(url): the
; service graph follows an address held in a field to the argument its
; callers pass.
(class_declaration
  name: (_) @ctorp.class
  body: (class_body (method_definition
    name: (property_identifier) @_ctor
    parameters: (formal_parameters) @ctorp.params
    body: (statement_block (expression_statement (assignment_expression
      left: (member_expression object: (this) property: (property_identifier) @ctorp.field)
      right: (identifier) @ctorp.param)))))
  (#eq? @_ctor "constructor"))
(new_expression constructor: (_) @ctor.name arguments: (arguments (_)) @ctor.args)
