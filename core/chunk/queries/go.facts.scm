; Go: outbound calls, routes, references and the bindings used to resolve
; them. Capture roles are documented in core/chunk/facts.go.

; ---- bindings: constants and variables holding values -------------------
(const_spec name: (identifier) @bind.name value: (expression_list . (_) @bind.value))
(var_spec name: (identifier) @bind.name value: (expression_list . (_) @bind.value))
(short_var_declaration left: (expression_list . (identifier) @bind.name) right: (expression_list . (_) @bind.value))

; ---- HTTP clients -------------------------------------------------------
; http.NewRequest(http.MethodGet, url, body) / NewRequestWithContext(ctx, ...)
((call_expression
   function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn)
   arguments: (argument_list (_) @http.verb . (_) @http.url . (_) .))
 @http
 (#eq? @_pkg "http") (#match? @_fn "^NewRequest(WithContext)?$") (#set! system "net/http"))
; go-resty: client.R().SetBody(b).Post(url), resty.New().R().Get(url); the
; client is the chain's first name (core/chunk), its base SetBaseURL's.
((call_expression
   function: (selector_expression operand: (call_expression) @_chain field: (field_identifier) @http.verb)
   arguments: (argument_list . (_) @http.url .))
 @http
 (#match? @http.verb "^(Get|Post|Put|Patch|Delete|Head|Options)$") (#match? @_chain "\\.R\\(\\)") (#set! system "resty"))
((short_var_declaration
   left: (expression_list . (identifier) @client.name)
   right: (expression_list . (call_expression
     function: (selector_expression field: (field_identifier) @_fn)
     arguments: (argument_list . (_) @client.base))))
 @client
 (#match? @_fn "^Set(Base|Host)URL$") (#set! system "resty"))
; http.Get(url), client.Head(url): exactly one argument (a router's
; r.Get("/x", handler) has two)
((call_expression
   function: (selector_expression operand: (_) @http.client field: (field_identifier) @http.verb)
   arguments: (argument_list . (_) @http.url .))
 @http
 (#match? @http.verb "^(Get|Head)$") (#not-match? @http.client "\\.R\\(\\)") (#set! system "net/http"))
; http.Post(url, contentType, body), client.PostForm(url, values)
((call_expression
   function: (selector_expression operand: (_) @http.client field: (field_identifier) @http.verb)
   arguments: (argument_list . (_) @http.url . (_) . (_) .))
 @http
 (#eq? @http.verb "Post") (#set! system "net/http"))
((call_expression
   function: (selector_expression operand: (_) @http.client field: (field_identifier) @http.verb)
   arguments: (argument_list . (_) @http.url . (_) .))
 @http
 (#eq? @http.verb "PostForm") (#set! system "net/http"))

; ---- gRPC ---------------------------------------------------------------
((call_expression
   function: (selector_expression field: (field_identifier) @grpc.service)
   arguments: (argument_list . (_)))
 @grpc
 (#match? @grpc.service "^New[A-Za-z0-9]+Client$") (#set! system "grpc"))
((call_expression
   function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @grpc.target))
 @grpc
 (#eq? @_pkg "grpc") (#match? @_fn "^(Dial|NewClient)$") (#set! system "grpc"))
; grpc.DialContext(ctx, target, ...)
((call_expression
   function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn)
   arguments: (argument_list . (_) . (_) @grpc.target))
 @grpc
 (#eq? @_pkg "grpc") (#eq? @_fn "DialContext") (#set! system "grpc"))

; ---- queues -------------------------------------------------------------
; segmentio/kafka-go: kafka.Writer{Topic: ...}, kafka.NewReader(kafka.ReaderConfig{Topic: ...})
((composite_literal
   type: (qualified_type package: (package_identifier) @_pkg name: (type_identifier) @_t)
   body: (literal_value (keyed_element key: (literal_element (identifier) @_k) value: (literal_element (_) @topic))))
 @publish
 (#eq? @_pkg "kafka") (#eq? @_t "Writer") (#eq? @_k "Topic") (#set! system "kafka"))
((composite_literal
   type: (qualified_type package: (package_identifier) @_pkg name: (type_identifier) @_t)
   body: (literal_value (keyed_element key: (literal_element (identifier) @_k) value: (literal_element (_) @topic))))
 @subscribe
 (#eq? @_pkg "kafka") (#eq? @_t "ReaderConfig") (#eq? @_k "Topic") (#set! system "kafka"))
; kafka.Message{Topic: ...} written by a producer (segmentio, confluent TopicPartition)
((composite_literal
   type: (qualified_type package: (package_identifier) @_pkg name: (type_identifier) @_t)
   body: (literal_value (keyed_element key: (literal_element (identifier) @_k) value: (literal_element (_) @topic))))
 @publish
 (#eq? @_pkg "kafka") (#eq? @_t "Message") (#eq? @_k "Topic") (#set! system "kafka"))
((composite_literal
   type: (qualified_type package: (package_identifier) @_pkg name: (type_identifier) @_t)
   body: (literal_value (keyed_element key: (literal_element (identifier) @_k) value: (literal_element (_) @topic))))
 @publish
 (#eq? @_pkg "kafka") (#eq? @_t "TopicPartition") (#eq? @_k "Topic") (#set! system "kafka"))
; confluent / sarama consumers: c.SubscribeTopics([]string{"a"}, nil), c.Subscribe("a", nil)
((call_expression
   function: (selector_expression field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @topic))
 @subscribe
 (#match? @_fn "^(SubscribeTopics|ConsumePartition)$") (#set! system "kafka"))
; sarama: &sarama.ProducerMessage{Topic: ...}
((composite_literal
   type: (qualified_type package: (package_identifier) @_pkg name: (type_identifier) @_t)
   body: (literal_value (keyed_element key: (literal_element (identifier) @_k) value: (literal_element (_) @topic))))
 @publish
 (#eq? @_pkg "sarama") (#eq? @_t "ProducerMessage") (#eq? @_k "Topic") (#set! system "kafka"))
; NATS: nc.Publish("subj", data), nc.Subscribe("subj", h), nc.QueueSubscribe("subj", "q", h)
((call_expression
   function: (selector_expression operand: (_) @_c field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @topic . (_)))
 @publish
 (#match? @_c "(?i)^(nc|conn|nats|natsconn|js)$") (#match? @_fn "^(Publish|PublishMsg|Request)$") (#set! system "nats"))
((call_expression
   function: (selector_expression operand: (_) @_c field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @topic))
 @subscribe
 (#match? @_c "(?i)^(nc|conn|nats|natsconn|js)$") (#match? @_fn "^(Subscribe|QueueSubscribe|ChanSubscribe)$") (#set! system "nats"))
; RabbitMQ (amqp091-go, streadway/amqp): ch.Consume("queue", ...),
; ch.Publish("exchange", "routing-key", ...), ch.PublishWithContext(ctx, "exchange", "routing-key", ...)
((call_expression
   function: (selector_expression operand: (_) @_c field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @topic))
 @subscribe
 (#match? @_c "(?i)^(ch|channel|amqpchannel|amqpch|rabbitch)$") (#eq? @_fn "Consume") (#set! system "rabbitmq"))
((call_expression
   function: (selector_expression operand: (_) @_c field: (field_identifier) @_fn)
   arguments: (argument_list . (_) . (_) @topic))
 @publish
 (#match? @_c "(?i)^(ch|channel|amqpchannel|amqpch|rabbitch)$") (#eq? @_fn "Publish") (#set! system "rabbitmq"))
((call_expression
   function: (selector_expression operand: (_) @_c field: (field_identifier) @_fn)
   arguments: (argument_list . (_) . (_) . (_) @topic))
 @publish
 (#match? @_c "(?i)^(ch|channel|amqpchannel|amqpch|rabbitch)$") (#eq? @_fn "PublishWithContext") (#set! system "rabbitmq"))

; Dapr: client.InvokeMethod(ctx, "app", "method", "get"), InvokeMethodWithContent(ctx, "app", "method", "post", content),
; client.PublishEvent(ctx, "pubsub", "topic", data)
((call_expression
   function: (selector_expression field: (field_identifier) @_fn)
   arguments: (argument_list . (_) . (_) @dapr.app . (_) @dapr.method . (_) @dapr.verb))
 @dapr.invoke
 (#match? @_fn "^(InvokeMethod|InvokeMethodWithContent|InvokeMethodWithCustomContent)$"))
((call_expression
   function: (selector_expression field: (field_identifier) @_fn)
   arguments: (argument_list . (_) . (_) . (_) @topic))
 @publish
 (#eq? @_fn "PublishEvent") (#set! system "dapr"))
; Dapr subscription: s.AddTopicEventHandler(&common.Subscription{PubsubName: "pubsub", Topic: "orders"}, h)
((composite_literal
   type: (qualified_type name: (type_identifier) @_t)
   body: (literal_value (keyed_element key: (literal_element (identifier) @_k) value: (literal_element (_) @topic))))
 @subscribe
 (#eq? @_t "Subscription") (#eq? @_k "Topic") (#set! system "dapr"))

; ---- databases and caches -----------------------------------------------
((call_expression
   function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @db.driver . (_) @dsn))
 @db
 (#eq? @_pkg "sql") (#eq? @_fn "Open") (#set! system "sql"))
((call_expression
   function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn)
   arguments: (argument_list . (_) . (_) @dsn))
 @db
 (#match? @_pkg "^(pgx|pgxpool)$") (#match? @_fn "^(Connect|New|NewWithConfig)$") (#set! system "postgres"))
((call_expression
   function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn))
 @db
 (#eq? @_pkg "mongo") (#match? @_fn "^(Connect|NewClient)$") (#set! system "mongodb"))
((call_expression
   function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn)
   arguments: (argument_list
     (unary_expression operand: (composite_literal
       body: (literal_value (keyed_element key: (literal_element (identifier) @_k) value: (literal_element (_) @dsn)))))))
 @cache
 (#eq? @_pkg "redis") (#match? @_fn "^New(Client|ClusterClient|UniversalClient)$") (#match? @_k "^(Addr|Addrs)$") (#set! system "redis"))

; ---- routes -------------------------------------------------------------
; net/http and gorilla/mux: mux.HandleFunc("GET /items/{id}", h), http.Handle("/x", h)
((call_expression
   function: (selector_expression operand: (_) @route.router field: (field_identifier) @_fn)
   arguments: (argument_list . [(interpreted_string_literal) (raw_string_literal)] @route.path . (_) @route.handler))
 @route
 (#match? @_fn "^(Handle|HandleFunc)$") (#not-match? @route.path "^\"(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|CONNECT|TRACE)\"$") (#set! framework "net/http"))
; julienschmidt/httprouter: router.Handle("GET", "/x", h), router.HandlerFunc(http.MethodPost, "/x", h);
; a computed path (bp("/x")) is no route, as in the net/http pattern.
((call_expression
   function: (selector_expression operand: (_) @route.router field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @route.verb . [(interpreted_string_literal) (raw_string_literal)] @route.path . (_) @route.handler .))
 @route
 (#match? @_fn "^(Handle|Handler|HandlerFunc)$") (#match? @route.verb "^(\"(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\"|http\\.Method[A-Z][a-z]+)$") (#set! framework "httprouter"))
; gorilla/mux: r.HandleFunc("/x", h).Methods("GET", "POST")
((call_expression
   function: (selector_expression
     operand: (call_expression
       function: (selector_expression operand: (_) @route.router field: (field_identifier) @_fn)
       arguments: (argument_list . [(interpreted_string_literal) (raw_string_literal)] @route.path . (_) @route.handler))
     field: (field_identifier) @_m)
   arguments: (argument_list) @route.verb)
 @route
 (#match? @_fn "^(Handle|HandleFunc)$") (#eq? @_m "Methods") (#set! framework "gorilla/mux"))
; gorilla/mux with a matcher or name between: r.HandleFunc("/x", h).Name("x").Methods("GET")
((call_expression
   function: (selector_expression
     operand: (call_expression
       function: (selector_expression
         operand: (call_expression
           function: (selector_expression operand: (_) @route.router field: (field_identifier) @_fn)
           arguments: (argument_list . [(interpreted_string_literal) (raw_string_literal)] @route.path . (_) @route.handler))
         field: (field_identifier) @_mid))
     field: (field_identifier) @_m)
   arguments: (argument_list) @route.verb)
 @route
 (#match? @_fn "^(Handle|HandleFunc)$") (#match? @_mid "^(Name|Queries|Headers|HeadersRegexp|Schemes|Host)$") (#eq? @_m "Methods") (#set! framework "gorilla/mux"))
; chi, gin, echo, fiber: r.Get("/x", h), r.GET("/x", mw, h), e.POST(...), app.Get(...);
; a path without its slash (gin's group.GET("", h)) only on a known group
; (core/chunk/facts.go)
((call_expression
   function: (selector_expression operand: (_) @route.router field: (field_identifier) @route.verb)
   arguments: (argument_list . [(interpreted_string_literal) (raw_string_literal)] @route.path . (_) @route.handler) @route.args)
 @route
 (#match? @route.verb "^(Get|Post|Put|Delete|Patch|Head|Options|Any|All|GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|Any)$")
 (#set! framework "router"))
; gin: r.Match([]string{"GET", "HEAD"}, "/x", h)
((call_expression
   function: (selector_expression operand: (_) @route.router field: (field_identifier) @_fn)
   arguments: (argument_list . (composite_literal) @route.verb . [(interpreted_string_literal) (raw_string_literal)] @route.path . (_) @route.handler))
 @route
 (#eq? @_fn "Match") (#set! framework "gin"))
; chi: r.Method("GET", "/x", h)
((call_expression
   function: (selector_expression operand: (_) @route.router field: (field_identifier) @_fn)
   arguments: (argument_list . (_) @route.verb . [(interpreted_string_literal) (raw_string_literal)] @route.path . (_) @route.handler))
 @route
 (#match? @_fn "^(Method|MethodFunc)$") (#set! framework "chi"))
; groups: v1 := r.Group("/v1"), api := r.PathPrefix("/api")
(short_var_declaration
   left: (expression_list . (identifier) @router.name)
   right: (expression_list . (call_expression
     function: (selector_expression operand: (_) @router.parent field: (field_identifier) @_fn)
     arguments: (argument_list . [(interpreted_string_literal) (raw_string_literal)] @router.prefix)))
 (#match? @_fn "^(Group|Route|Mount|PathPrefix)$")) @router
; routers made by a web framework: g := gin.New(), e := echo.New(), r := chi.NewRouter()
(short_var_declaration
   left: (expression_list . (identifier) @router.name)
   right: (expression_list . (call_expression
     function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn)))
 (#match? @_pkg "^(gin|echo|chi|fiber|mux|httprouter)$") (#match? @_fn "^(New|Default|NewRouter)$")) @router
; gorilla/mux: api := r.PathPrefix("/api").Subrouter()
(short_var_declaration
   left: (expression_list . (identifier) @router.name)
   right: (expression_list . (call_expression
     function: (selector_expression
       operand: (call_expression
         function: (selector_expression operand: (_) @router.parent field: (field_identifier) @_fn)
         arguments: (argument_list . [(interpreted_string_literal) (raw_string_literal)] @router.prefix))
       field: (field_identifier) @_sub)))
 (#eq? @_fn "PathPrefix") (#eq? @_sub "Subrouter")) @router
; chi: r.Route("/api", func(r chi.Router) { r.Get(...) })
((call_expression
   function: (selector_expression field: (field_identifier) @_fn)
   arguments: (argument_list . [(interpreted_string_literal) (raw_string_literal)] @prefix.path . (func_literal) @prefix.scope))
 @prefix
 (#eq? @_fn "Route"))
; gRPC services: pb.RegisterCartServiceServer(s, impl)
((call_expression
   function: (selector_expression field: (field_identifier) @route.grpc))
 @route
 (#match? @route.grpc "^Register[A-Za-z0-9]+Server$") (#set! framework "grpc"))

; ---- references ---------------------------------------------------------
(call_expression function: [(identifier) @ref.call (selector_expression field: (field_identifier) @ref.call)])
(type_identifier) @ref.type

; ---- cloud SDK clients --------------------------------------------------
((call_expression function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn) arguments: (argument_list) @sdk.args)
 @sdk
 (#eq? @_pkg "azservicebus") (#match? @_fn "^NewClient") (#set! system "azure-service-bus") (#set! kind "queue"))
((call_expression function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn) arguments: (argument_list) @sdk.args)
 @sdk
 (#eq? @_pkg "azcosmos") (#match? @_fn "^NewClient") (#set! system "azure-cosmos-db") (#set! kind "db"))
((call_expression function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn) arguments: (argument_list) @sdk.args)
 @sdk
 (#match? @_pkg "^(azblob|azqueue)$") (#match? @_fn "^NewClient") (#set! system "azure-storage") (#set! kind "http"))
((call_expression function: (selector_expression operand: (identifier) @_pkg field: (field_identifier) @_fn) arguments: (argument_list) @sdk.args)
 @sdk
 (#eq? @_pkg "openai") (#eq? @_fn "NewClient") (#set! system "api.openai.com") (#set! kind "http") (#set! pos "none") (#set! default "https://api.openai.com/v1"))
