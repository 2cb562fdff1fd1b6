using System.Net;
using System.Net.Http.Json;
using Acme.Cart.Models;

namespace Acme.Cart.Services;

/// <summary>
/// Typed HTTP client for the catalog service (Python, services/catalog).
/// Its BaseAddress is configured in Program.cs from Services:Catalog.
/// </summary>
public class CatalogClient
{
    private readonly HttpClient _http;

    public CatalogClient(HttpClient http)
    {
        _http = http;
    }

    /// <summary>GET /products/{id}; null when the product does not exist.</summary>
    public async Task<Product?> GetProductAsync(string productId)
    {
        var response = await _http.GetAsync($"/products/{Uri.EscapeDataString(productId)}");
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            return null;
        }
        response.EnsureSuccessStatusCode();
        return await response.Content.ReadFromJsonAsync<Product>();
    }
}
