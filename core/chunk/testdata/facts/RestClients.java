package org.example.harbor;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

@RegisterRestClient(configKey = "berths")
@Path("/berths")
public interface BerthsClient {
    @GET
    @Path("/{id}")
    Berth get(@PathParam("id") String id);

    @DELETE
    @Path("/{id}/booking")
    void release(@PathParam("id") String id);
}

@RegisterRestClient(baseUri = "http://cranes:8080/api")
interface CraneClient {
    @POST
    Crane lift(Lift lift);
}

@RegisterRestClient
interface PilotClient {
    @GET
    @Path("pilots")
    java.util.List<Pilot> pilots();
}

@Path("/harbor")
class HarborResource {
    @GET
    @Path("/status")
    public String status() {
        return "ok";
    }
}
