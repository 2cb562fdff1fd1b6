package org.example.depot

import org.springframework.web.client.RestTemplate

class StockClient(private val baseUrl: String, private val rest: RestTemplate = RestTemplate()) {
    fun level(sku: String): Int? = rest.getForObject("$baseUrl/levels/$sku", Int::class.java)
}

class Depot {
    private val stock = StockClient(System.getenv("INVENTORY_ENDPOINT") ?: "http://localhost:8081")
    private val other = Pair(1, 2)
}
