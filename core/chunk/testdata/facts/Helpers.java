package org.example.docks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public class BerthClient {
    private final HttpClient http = HttpClient.newHttpClient();
    private final String base = System.getenv("BERTHS_URL");

    private String get(String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).GET().build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    public String berth(String id) throws Exception {
        return get("/berths/" + id);
    }

    public String schedule() throws Exception {
        return get("/schedule");
    }
}
