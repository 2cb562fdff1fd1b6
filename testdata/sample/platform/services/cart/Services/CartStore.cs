using System.Text.Json;
using Acme.Cart.Models;
using StackExchange.Redis;

namespace Acme.Cart.Services;

/// <summary>Stores carts in Redis under cart:{userId} for 30 days.</summary>
public class CartStore
{
    private static readonly TimeSpan Ttl = TimeSpan.FromDays(30);
    private readonly IDatabase _redis;

    public CartStore(IConnectionMultiplexer redis)
    {
        _redis = redis.GetDatabase();
    }

    private static string Key(string userId) => $"cart:{userId}";

    public async Task<ShoppingCart> LoadAsync(string userId)
    {
        var value = await _redis.StringGetAsync(Key(userId));
        if (value.IsNullOrEmpty)
        {
            return new ShoppingCart { UserId = userId };
        }
        return JsonSerializer.Deserialize<ShoppingCart>(value.ToString()) ?? new ShoppingCart { UserId = userId };
    }

    public Task SaveAsync(ShoppingCart cart) =>
        _redis.StringSetAsync(Key(cart.UserId), JsonSerializer.Serialize(cart), Ttl);

    public Task DeleteAsync(string userId) => _redis.KeyDeleteAsync(Key(userId));
}
