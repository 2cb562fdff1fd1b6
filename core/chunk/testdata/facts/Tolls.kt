package com.fleetco.tolls

import io.ktor.client.HttpClient
import io.ktor.server.routing.*
import org.springframework.kafka.annotation.KafkaListener
import org.springframework.web.bind.annotation.*

// Spring in Kotlin: the class's @RequestMapping is the routes' prefix;
// the environment's address with its default, string templates.
@RestController
@RequestMapping("/tolls")
class TollController(private val rest: RestTemplate, private val kafkaTemplate: KafkaTemplate<String, String>) {
    private val fleetUrl = System.getenv("FLEET_URL") ?: "http://fleet:8080"

    @GetMapping("/{plate}")
    fun get(@PathVariable plate: String): Toll =
        rest.getForObject("$fleetUrl/vehicles/$plate", Toll::class.java)!!

    @PostMapping(value = ["/batch"])
    fun batch(@RequestBody tolls: List<Toll>) {
        tolls.forEach { kafkaTemplate.send("tolls.charged", it.plate) }
    }

    @DeleteMapping
    fun clear() {}

    @RequestMapping(value = ["/export"], method = [RequestMethod.GET])
    fun export() {}

    @KafkaListener(topics = ["plates.seen"], groupId = "tolls")
    fun onSeen(plate: String) {}
}

// Ktor: routes under route("/api"), an HttpClient call.
fun Application.module(client: HttpClient) {
    val billing = "http://billing:9000"
    routing {
        route("/api") {
            get("/health") { call.respondText("ok") }
            route("/invoices") {
                get { call.respond(client.get("${billing}/invoices")) }
            }
        }
        post("/charge") {
            client.post("$billing/charges")
        }
    }
}

// Not routes: a map's get, a get { } outside any route.
fun lookup(m: Map<String, String>) = m.get("/x")
val cached = lazy { get { 1 } }

// OpenFeign in Kotlin: calls to the service it names, not routes.
@FeignClient(name = "plates", path = "/v1")
interface PlatesClient {
    @GetMapping("/plates/{plate}")
    fun find(@PathVariable plate: String): Plate

    @RequestMapping(method = [RequestMethod.POST], value = ["/plates"])
    fun add(plate: Plate)
}

// Settings Spring injects into a constructor property and a property.
@Service
class RateCard(@Value("\${rates.url:http://rates:8080}") private val ratesUrl: String, private val rest: RestTemplate) {
    @Value("\${rates.region}")
    lateinit var region: String

    fun rate(lane: String) = rest.getForObject("$ratesUrl/lanes/$lane", Rate::class.java)
}
