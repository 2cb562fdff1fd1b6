; Ruby: outbound calls, routes and bindings (Net::HTTP, HTTParty,
; Faraday, RestClient; Sinatra, Rails, WEBrick).

; ---- bindings -----------------------------------------------------------
(assignment left: [(identifier) (constant)] @bind.name right: (_) @bind.value)

; ---- HTTP clients -------------------------------------------------------
; Net::HTTP.get(URI("http://x/y")), Net::HTTP.get_response(uri), Net::HTTP.post_form(uri, params)
((call receiver: (scope_resolution) @http.client method: (identifier) @http.verb arguments: (argument_list . (_) @http.url))
 @http
 (#match? @http.client "^(::)?Net::HTTP$") (#match? @http.verb "^(get|get_response|post|post_form|put|patch|delete|head)$")
 (#set! system "net/http"))
; HTTParty.get(url), RestClient.post(url, body), Faraday.get(url), Excon.get(url), Typhoeus.get(url)
((call receiver: (constant) @http.client method: (identifier) @http.verb arguments: (argument_list . (_) @http.url))
 @http
 (#match? @http.client "^(HTTParty|RestClient|Faraday|Excon|Typhoeus)$") (#match? @http.verb "^(get|post|put|patch|delete|head)$"))
; conn = Faraday.new(url: "http://x"): conn's base address
((assignment
   left: (_) @client.name
   right: (call receiver: (constant) @_f method: (identifier) @_new
     arguments: (argument_list (pair key: (hash_key_symbol) @_k value: (_) @client.base))))
 @client
 (#eq? @_f "Faraday") (#eq? @_new "new") (#eq? @_k "url") (#set! system "Faraday"))
; conn.get("/x"), @client.post("/y"): a receiver named like an HTTP client
((call receiver: [(identifier) (instance_variable)] @http.client method: (identifier) @http.verb arguments: (argument_list . (_) @http.url))
 @http
 (#match? @http.verb "^(get|post|put|patch|delete|head)$") (#match? @http.client "(?i)(conn|connection|client|http|api|session)$"))

; ---- caches -------------------------------------------------------------
((call receiver: (constant) @_c method: (identifier) @_n arguments: (argument_list (pair key: (hash_key_symbol) @_k value: (_) @dsn)))
 @cache
 (#eq? @_c "Redis") (#eq? @_n "new") (#eq? @_k "url") (#set! system "redis"))

; ---- routes -------------------------------------------------------------
; Sinatra: get '/carts/:id' do ... end
((call method: (identifier) @route.verb arguments: (argument_list . (string) @route.path .) block: (_) @route.handler)
 @route
 (#match? @route.verb "^(get|post|put|patch|delete|options)$") (#match? @route.path "^.[/]") (#set! framework "sinatra"))
; Rails: get '/health', to: 'health#show'
((call method: (identifier) @route.verb arguments: (argument_list . (string) @route.path (pair key: (hash_key_symbol) @_to value: (string) @route.handler)))
 @route
 (#match? @route.verb "^(get|post|put|patch|delete)$") (#eq? @_to "to") (#set! framework "rails"))
; Rails: namespace :api do ... end, scope '/v2' do ... end
((call method: (identifier) @_ns arguments: (argument_list . [(simple_symbol) (string)] @prefix.path) block: (_) @prefix.scope)
 @prefix
 (#match? @_ns "^(namespace|scope)$"))
; WEBrick: server.mount_proc '/details' do |req, res| ... end
((call receiver: (_) method: (identifier) @_m arguments: (argument_list . (string) @route.path) block: (_) @route.handler)
 @route
 (#eq? @_m "mount_proc") (#set! framework "webrick"))
