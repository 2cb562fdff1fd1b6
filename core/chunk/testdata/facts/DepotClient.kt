package org.example.depot

import retrofit2.Retrofit
import retrofit2.http.GET
import retrofit2.http.PUT
import retrofit2.http.Path

interface DockApi {
    @GET("docks/{dock}/slots")
    suspend fun slots(@Path("dock") dock: String): List<String>

    @PUT("docks/{dock}")
    suspend fun reserve(@Path("dock") dock: String)
}

object Depot {
    private val retrofit = Retrofit.Builder()
        .baseUrl("http://docks:8080/api/")
        .build()
    val docks: DockApi = retrofit.create(DockApi::class.java)
}
