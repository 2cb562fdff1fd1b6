package com.example.garage.clients;

import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.*;

// A Spring Cloud OpenFeign client found by service discovery: its
// mappings are calls to parts-service, not routes of this service.
@FeignClient(name = "parts-service", fallback = PartsFallback.class)
public interface PartsClient {
    @GetMapping("/parts/{sku}")
    Part find(@PathVariable("sku") String sku);

    @RequestMapping(method = RequestMethod.PUT, value = "/parts/{sku}/reserve", consumes = "application/json")
    void reserve(@PathVariable("sku") String sku, Reservation r);
}

// A client at a configured address, under a path and a prefix.
@FeignClient(value = "invoices", url = "${billing.invoices-url:http://billing:8080}", path = "/api")
@RequestMapping("/invoices")
interface InvoiceClient {
    @PostMapping
    Invoice open(Invoice i);

    @DeleteMapping(path = {"/{id}", "/by-number/{id}"})
    void cancel(@PathVariable("id") String id);
}

@FeignClient("routing-service")
interface RoutingClient {
    @RequestMapping("/routing/slots")
    List<Slot> slots();
}

// The service's own controller, in the same file: its routes stay.
@RestController
@RequestMapping("/repairs")
class RepairController {
    @RequestMapping(value = "/{id}", method = RequestMethod.GET)
    public Repair get(@PathVariable String id) { return parts.find(id); }

    @RequestMapping(method = RequestMethod.POST, path = "/bulk")
    public void bulk(@RequestBody List<Repair> rs) {}

    @RequestMapping("/export")
    public void export() {}
}

// Settings Spring injects: a field's own @Value, a constructor
// parameter's (the field it sets), and neither for a plain value.
@Service
class QuoteService {
    @Value("${quotes.base-url:http://quotes:8080}")
    private String quotesUrl;

    @Value("${quotes.retries}")
    private int retries;

    private final String ratesUri;
    private final String region;

    QuoteService(@Value("http://${RATES_ADDR}/v1/rates") String ratesUri, @Value("eu-west") String region) {
        this.ratesUri = ratesUri;
        this.region = region;
    }
}
