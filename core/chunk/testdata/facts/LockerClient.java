package org.example.lockers;

import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

public class LockerClient {
    private static final String LOCKERS = System.getenv("LOCKERS_URL");
    private final Client client = ClientBuilder.newClient();

    public String locker(String id) {
        return client.target(LOCKERS).path("lockers").path(id).request(MediaType.APPLICATION_JSON).get(String.class);
    }

    public Response open(String id) {
        WebTarget target = client.target(LOCKERS + "/lockers/" + id);
        Invocation.Builder builder = target.path("open").request();
        builder.header("x-request-id", "1");
        return builder.post(Entity.json("{}"));
    }

    public Response rename(String id, String name) {
        return client.target(LOCKERS).path("lockers/" + id).request().method("PATCH", Entity.text(name));
    }
}
