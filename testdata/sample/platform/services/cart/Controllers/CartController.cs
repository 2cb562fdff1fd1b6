using Acme.Cart.Models;
using Acme.Cart.Services;
using Microsoft.AspNetCore.Mvc;

namespace Acme.Cart.Controllers;

/// <summary>
/// The cart API: one cart per user, kept in Redis. Called by the storefront
/// (add and show items) and by checkout (read and clear on order).
/// </summary>
[ApiController]
[Route("api/cart")]
public class CartController : ControllerBase
{
    private readonly CartStore _store;
    private readonly CatalogClient _catalog;
    private readonly ILogger<CartController> _logger;

    public CartController(CartStore store, CatalogClient catalog, ILogger<CartController> logger)
    {
        _store = store;
        _catalog = catalog;
        _logger = logger;
    }

    /// <summary>Returns the user's cart; an unknown user has an empty cart.</summary>
    [HttpGet("{userId}")]
    public async Task<ActionResult<ShoppingCart>> GetCart(string userId)
    {
        var cart = await _store.LoadAsync(userId);
        return Ok(cart);
    }

    /// <summary>
    /// Adds an item. The price is taken from the catalog service at the
    /// time of adding, never from the client.
    /// </summary>
    [HttpPost("{userId}/items")]
    public async Task<ActionResult<ShoppingCart>> AddItem(string userId, [FromBody] AddItemRequest request)
    {
        if (request.Quantity <= 0)
        {
            return BadRequest("quantity must be positive");
        }
        var product = await _catalog.GetProductAsync(request.ProductId);
        if (product is null)
        {
            return NotFound($"product {request.ProductId} does not exist");
        }
        var cart = await _store.LoadAsync(userId);
        cart.Add(product.Id, request.Quantity, product.PriceCents);
        await _store.SaveAsync(cart);
        _logger.LogInformation("added {Quantity} x {ProductId} to cart of {UserId}", request.Quantity, product.Id, userId);
        return Ok(cart);
    }

    /// <summary>Empties the cart; checkout calls this after an order is placed.</summary>
    [HttpDelete("{userId}")]
    public async Task<IActionResult> ClearCart(string userId)
    {
        await _store.DeleteAsync(userId);
        return NoContent();
    }
}
