package com.acme.shipping;

import io.grpc.ManagedChannelBuilder;
import java.sql.DriverManager;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.web.bind.annotation.*;
import org.springframework.web.client.RestTemplate;

@RestController
@RequestMapping("/shipments")
public class ShipmentController {
    private final RestTemplate rest = new RestTemplate();

    @GetMapping("/{id}")
    public Shipment get(@PathVariable String id) {
        return rest.getForObject("http://carrier:8080/tracking/" + id, Shipment.class);
    }

    @PostMapping
    public void create(@RequestBody Shipment s) throws Exception {
        kafkaTemplate.send("shipments.created", s.id());
        var conn = DriverManager.getConnection("jdbc:postgresql://db:5432/shipping");
        var channel = ManagedChannelBuilder.forTarget("inventory:50051").usePlaintext().build();
        var stub = InventoryGrpc.newBlockingStub(channel);
    }

    @PostMapping(value = "/{id}/labels", consumes = "application/json")
    public void label(@PathVariable String id) {}

    @GetMapping(produces = "text/csv", path = "/export")
    public String export() { return ""; }

    @KafkaListener(topics = "orders.paid")
    public void onPaid(String orderId) {}
}
