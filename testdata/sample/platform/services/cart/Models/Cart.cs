namespace Acme.Cart.Models;

public record Product(string Id, string Name, long PriceCents);

public record AddItemRequest(string ProductId, int Quantity);

public class CartItem
{
    public string ProductId { get; set; } = "";
    public int Quantity { get; set; }
    public long PriceCents { get; set; }
}

/// <summary>A user's shopping cart.</summary>
public class ShoppingCart
{
    public string UserId { get; set; } = "";
    public List<CartItem> Items { get; set; } = new();

    public void Add(string productId, int quantity, long priceCents)
    {
        var existing = Items.FirstOrDefault(i => i.ProductId == productId);
        if (existing is not null)
        {
            existing.Quantity += quantity;
            existing.PriceCents = priceCents;
            return;
        }
        Items.Add(new CartItem { ProductId = productId, Quantity = quantity, PriceCents = priceCents });
    }

    public long TotalCents => Items.Sum(i => i.PriceCents * i.Quantity);
}
