package org.example.harbor

import jakarta.ws.rs.GET
import jakarta.ws.rs.Path
import jakarta.ws.rs.PathParam
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient

@RegisterRestClient(configKey = "locks")
@Path("/locks")
interface LocksClient {
    @GET
    @Path("/{id}")
    fun lock(@PathParam("id") id: String): Lock
}
