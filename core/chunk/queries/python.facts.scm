; Python: outbound calls, routes, references and bindings.

; ---- bindings -----------------------------------------------------------
(assignment left: (identifier) @bind.name right: (_) @bind.value)
; Flask: app.config["ORDERS_URI"] = "http://{}/orders".format(os.environ["ORDERS_ADDR"])
((assignment
   left: (subscript value: (attribute attribute: (identifier) @_cfg) subscript: (string) @bind.config)
   right: (_) @bind.value)
 (#eq? @_cfg "config"))
(import_from_statement module_name: (_) @bind.from name: (dotted_name (identifier) @bind.import))
(import_from_statement module_name: (_) @bind.from name: (aliased_import alias: (identifier) @bind.import))

; ---- HTTP clients -------------------------------------------------------
; requests.get(url), httpx.post(url), session.get(url), client.put(url), aiohttp session.get(url)
; core/chunk keeps such a call when its target is a URL or a path, or its
; client is an HTTP library or a client with a base_url of the same file
; (d.get("key") and os.environ.get("X") are not HTTP calls).
((call
   function: (attribute object: (_) @http.client attribute: (identifier) @http.verb)
   arguments: (argument_list . (_) @http.url))
 @http
 (#match? @http.verb "^(get|post|put|delete|patch|head|options)$") (#set! system "python-http"))
; requests.request("GET", url)
((call
   function: (attribute object: (_) @http.client attribute: (identifier) @_fn)
   arguments: (argument_list . (_) @http.verb . (_) @http.url))
 @http
 (#eq? @_fn "request") (#match? @http.client "(?i)(requests|httpx|session|client|http)$") (#set! system "python-http"))
; base URLs: client = httpx.Client(base_url=...), httpx.AsyncClient(base_url=...)
((assignment
   left: (_) @client.name
   right: (call
     function: (attribute attribute: (identifier) @_cls)
     arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @client.base))))
 @client
 (#match? @_cls "^(Client|AsyncClient|ClientSession)$") (#match? @_k "^base_url$") (#set! system "python-http"))

; ---- gRPC ---------------------------------------------------------------
((call function: [(identifier) (attribute)] @grpc.service arguments: (argument_list . (_)))
 @grpc
 (#match? @grpc.service "Stub$") (#set! system "grpc"))
((call function: (attribute object: (identifier) @_pkg attribute: (identifier) @_fn)
   arguments: (argument_list . (_) @grpc.target))
 @grpc
 (#eq? @_pkg "grpc") (#match? @_fn "^(insecure_channel|secure_channel)$") (#set! system "grpc"))

; ---- queues -------------------------------------------------------------
; kafka-python: KafkaConsumer("topic", ...), producer.send("topic", ...)
((call function: [(identifier) (attribute)] @_cls arguments: (argument_list . [(string) (identifier) (attribute)] @topic))
 @subscribe
 (#match? @_cls "KafkaConsumer$") (#set! system "kafka"))
((call function: (attribute object: (_) @_p attribute: (identifier) @_fn) arguments: (argument_list . (_) @topic))
 @publish
 (#match? @_p "(?i)producer$") (#match? @_fn "^(send|produce|send_and_wait)$") (#set! system "kafka"))
; confluent-kafka / aiokafka: consumer.subscribe(["topic"])
((call function: (attribute object: (_) @_c attribute: (identifier) @_fn) arguments: (argument_list . (_) @topic))
 @subscribe
 (#match? @_c "(?i)consumer$") (#eq? @_fn "subscribe") (#set! system "kafka"))
; pika (RabbitMQ): channel.basic_publish(exchange=..., routing_key=...), channel.basic_consume(queue=...)
((call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @topic)))
 @publish
 (#eq? @_fn "basic_publish") (#eq? @_k "routing_key") (#set! system "rabbitmq"))
((call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @topic)))
 @subscribe
 (#eq? @_fn "basic_consume") (#eq? @_k "queue") (#set! system "rabbitmq"))
; nats-py: await nc.publish("subject", data), await nc.subscribe("subject", cb=...)
((call function: (attribute object: (_) @_c attribute: (identifier) @_fn) arguments: (argument_list . (_) @topic))
 @publish
 (#match? @_c "(?i)^(self\\.)?_?(nc|nats|natsconn|nats_client|js|jetstream)$") (#match? @_fn "^(publish|request)$") (#set! system "nats"))
((call function: (attribute object: (_) @_c attribute: (identifier) @_fn) arguments: (argument_list . (_) @topic))
 @subscribe
 (#match? @_c "(?i)^(self\\.)?_?(nc|nats|natsconn|nats_client|js|jetstream)$") (#match? @_fn "^(subscribe|pull_subscribe)$") (#set! system "nats"))
; Dapr: client.invoke_method("app", "method", data=..., http_verb="POST"),
; client.publish_event(pubsub_name="pubsub", topic_name="topic", data=...)
((call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list . [(string) (identifier) (attribute) (call) (subscript)] @dapr.app . [(string) (identifier) (attribute) (call) (subscript)] @dapr.method
     (keyword_argument name: (identifier) @_v value: (_) @dapr.verb)?))
 @dapr.invoke
 (#eq? @_fn "invoke_method") (#eq? @_v "http_verb"))
((call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @topic)))
 @publish
 (#eq? @_fn "publish_event") (#eq? @_k "topic_name") (#set! system "dapr"))
; Dapr subscription: @dapr_app.subscribe(pubsub="pubsub", topic="orders")
((decorator (call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @topic))))
 @subscribe
 (#eq? @_fn "subscribe") (#eq? @_k "topic") (#set! system "dapr"))
; boto3 SQS and SNS
((call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @topic)))
 @publish
 (#match? @_fn "^(send_message|send_message_batch)$") (#eq? @_k "QueueUrl") (#set! system "sqs"))
((call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @topic)))
 @subscribe
 (#eq? @_fn "receive_message") (#eq? @_k "QueueUrl") (#set! system "sqs"))
((call function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @topic)))
 @publish
 (#eq? @_fn "publish") (#eq? @_k "TopicArn") (#set! system "sns"))
; redis pub/sub: r.publish("channel", msg), pubsub.subscribe("channel")
((call function: (attribute object: (_) @_r attribute: (identifier) @_fn) arguments: (argument_list . (_) @topic . (_)))
 @publish
 (#match? @_r "(?i)redis$") (#eq? @_fn "publish") (#set! system "redis"))
((call function: (attribute object: (_) @_r attribute: (identifier) @_fn) arguments: (argument_list . (_) @topic))
 @subscribe
 (#match? @_r "(?i)pubsub$") (#match? @_fn "^p?subscribe$") (#set! system "redis"))

; ---- databases and caches -----------------------------------------------
((call function: [(identifier) (attribute)] @_fn arguments: (argument_list . (_) @dsn))
 @db
 (#match? @_fn "(^|\\.)(ConnectionPool|AsyncConnectionPool|create_engine|create_async_engine)$") (#set! system "sql"))
((call function: (attribute object: (identifier) @_pkg attribute: (identifier) @_fn) arguments: (argument_list . (_) @dsn))
 @db
 (#match? @_pkg "^(psycopg|psycopg2|asyncpg)$") (#match? @_fn "^(connect|create_pool)$") (#set! system "postgres"))
((call function: (attribute object: (identifier) @_pkg attribute: (identifier) @_fn) arguments: (argument_list . (_) @dsn))
 @db
 (#match? @_pkg "^(pymysql|mysql)$") (#eq? @_fn "connect") (#set! system "mysql"))
((call function: [(identifier) (attribute)] @_fn arguments: (argument_list . (_) @dsn))
 @db
 (#match? @_fn "MongoClient$") (#set! system "mongodb"))
((call function: (attribute object: (_) @_pkg attribute: (identifier) @_fn)
   arguments: (argument_list . [(string) (identifier) (attribute) (call) (binary_operator)] @dsn))
 @cache
 (#match? @_pkg "^(redis|aioredis|redis\\.asyncio)$") (#match? @_fn "^(from_url|Redis|StrictRedis)$") (#set! system "redis"))
((call function: (attribute object: (_) @_pkg attribute: (identifier) @_fn)
   arguments: (argument_list (keyword_argument name: (identifier) @_k value: (_) @dsn)))
 @cache
 (#match? @_pkg "^(redis|aioredis)$") (#match? @_fn "^(Redis|StrictRedis)$") (#eq? @_k "host") (#set! system "redis"))

; ---- routes -------------------------------------------------------------
; FastAPI and Flask 2: @app.get("/x"), @router.post("/x")
(decorated_definition
  (decorator (call
    function: (attribute object: (identifier) @route.router attribute: (identifier) @route.verb)
    arguments: (argument_list . (string) @route.path)))
  definition: (_ name: (identifier) @route.handler)
  (#match? @route.verb "^(get|post|put|delete|patch|head|options|api_route)$")
  (#set! framework "python")) @route
; Flask: @app.route("/x", methods=["GET", "POST"])
(decorated_definition
  (decorator (call
    function: (attribute object: (identifier) @route.router attribute: (identifier) @_fn)
    arguments: (argument_list . (string) @route.path (keyword_argument name: (identifier) @_k value: (_) @route.verb))))
  definition: (_ name: (identifier) @route.handler)
  (#eq? @_fn "route") (#eq? @_k "methods") (#set! framework "flask")) @route
; Flask without methods: GET
(decorated_definition
  (decorator (call
    function: (attribute object: (identifier) @route.router attribute: (identifier) @_fn)
    arguments: (argument_list . (string) @route.path .)))
  definition: (_ name: (identifier) @route.handler)
  (#eq? @_fn "route") (#set! framework "flask") (#set! method "GET")) @route
; routers with a prefix: router = APIRouter(prefix="/products"), bp = Blueprint("x", __name__, url_prefix="/api")
(assignment
  left: (identifier) @router.name
  right: (call function: [(identifier) (attribute)] @_cls
    arguments: (argument_list (keyword_argument name: (identifier) @_k value: (string) @router.prefix)))
  (#match? @_cls "(APIRouter|Blueprint)$") (#match? @_k "^(prefix|url_prefix)$")) @router
; mounts: app.include_router(router, prefix="/v1"), app.register_blueprint(bp, url_prefix="/v1")
(call
  function: (attribute object: (identifier) @mount.into attribute: (identifier) @_fn)
  arguments: (argument_list . [(identifier) (attribute)] @mount.router (keyword_argument name: (identifier) @_k value: (string) @mount.prefix))
  (#match? @_fn "^(include_router|register_blueprint)$") (#match? @_k "^(prefix|url_prefix)$")) @mount
; Django: urlpatterns = [path("posts/<int:pk>/", views.detail), re_path(r"^x/$", View.as_view())];
; any list of them is a router named by its variable (list_patterns = [...])
(assignment
  left: (identifier) @route.router
  right: (list (call function: (identifier) @_fn
    arguments: (argument_list . [(string) (concatenated_string)] @route.path . (_) @route.handler)) @route)
  (#match? @_fn "^(path|re_path|url)$") (#set! framework "django"))
(augmented_assignment
  left: (identifier) @route.router
  right: (list (call function: (identifier) @_fn
    arguments: (argument_list . [(string) (concatenated_string)] @route.path . (_) @route.handler)) @route)
  (#match? @_fn "^(path|re_path|url)$") (#set! framework "django"))
; Django mounts: path("api/", include("shop.api.urls")), re_path(r"^list/(?P<id>\d+)/", include(list_patterns))
(assignment
  left: (identifier) @mount.into
  right: (list (call function: (identifier) @_fn
    arguments: (argument_list . [(string) (concatenated_string)] @mount.prefix .
      (call function: (identifier) @_inc arguments: (argument_list . [(string) @mount.from (identifier) @mount.router]))) @mount))
  (#match? @_fn "^(path|re_path|url)$") (#eq? @_inc "include"))
(augmented_assignment
  left: (identifier) @mount.into
  right: (list (call function: (identifier) @_fn
    arguments: (argument_list . [(string) (concatenated_string)] @mount.prefix .
      (call function: (identifier) @_inc arguments: (argument_list . [(string) @mount.from (identifier) @mount.router]))) @mount))
  (#match? @_fn "^(path|re_path|url)$") (#eq? @_inc "include"))
; gRPC: add_CartServiceServicer_to_server(impl, server)
((call function: [(identifier) (attribute)] @route.grpc)
 @route
 (#match? @route.grpc "add_[A-Za-z0-9]+Servicer_to_server$") (#set! framework "grpc"))

; ---- references ---------------------------------------------------------
(call function: [(identifier) @ref.call (attribute attribute: (identifier) @ref.call)])
(class_definition superclasses: (argument_list (identifier) @ref.type))
(type (identifier) @ref.type)

; ---- cloud SDK clients --------------------------------------------------
; A client of a hosted service: the node is the service (system), reached at
; the address argument when one is given (@sdk.args: kw names the keyword
; argument, else the first positional one), else at the SDK's default.
((call function: [(identifier) (attribute)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)(AzureOpenAI|AsyncAzureOpenAI|AzureChatOpenAI|AzureOpenAIEmbeddings)$") (#set! system "azure-openai") (#set! kind "http") (#set! kw "azure_endpoint,base_url,endpoint"))
((call function: [(identifier) (attribute)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)(OpenAI|AsyncOpenAI|ChatOpenAI|OpenAIEmbeddings)$") (#set! system "api.openai.com") (#set! kind "http") (#set! kw "base_url,openai_api_base") (#set! default "https://api.openai.com/v1"))
((call function: [(identifier) (attribute)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)ServiceBusClient(\\.from_connection_string)?$") (#set! system "azure-service-bus") (#set! kind "queue") (#set! kw "fully_qualified_namespace,conn_str"))
((call function: [(identifier) (attribute)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)CosmosClient(\\.from_connection_string)?$") (#set! system "azure-cosmos-db") (#set! kind "db") (#set! kw "url,conn_str"))
((call function: [(identifier) (attribute)] @_cls arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_cls "(^|\\.)(BlobServiceClient|QueueServiceClient)(\\.from_connection_string)?$") (#set! system "azure-storage") (#set! kind "http") (#set! kw "account_url,conn_str"))
((call function: (attribute object: (identifier) @_b attribute: (identifier) @_fn) arguments: (argument_list . (string) @sdk.service))
 @sdk
 (#eq? @_b "boto3") (#match? @_fn "^(client|resource)$") (#set! system "aws") (#set! kind "http"))

; ---- constructors: what a class's attributes are given ----------------
; self.base_url = base_url in __init__, and CartClient(url) (a call of a
; capitalized name): the service graph follows an address held in an
; attribute to the argument its callers pass.
(class_definition
  name: (identifier) @ctorp.class
  body: (block (function_definition
    name: (identifier) @_init
    parameters: (parameters) @ctorp.params
    body: (block (expression_statement (assignment
      left: (attribute object: (identifier) @_self attribute: (identifier) @ctorp.field)
      right: (identifier) @ctorp.param)))))
  (#eq? @_init "__init__") (#eq? @_self "self"))
((call function: [(identifier) (attribute)] @ctor.name arguments: (argument_list (_)) @ctor.args)
 (#match? @ctor.name "(^|\\.)[A-Z][A-Za-z0-9]*$"))
