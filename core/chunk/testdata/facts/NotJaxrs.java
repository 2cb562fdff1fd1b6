package org.example.lockers;

import org.example.routing.Router;

public class Dispatch {
    private final Router router = new Router();

    public void send(String queue) {
        router.target("/queues/" + queue).send();
    }
}
