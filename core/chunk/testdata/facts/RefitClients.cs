using Refit;

namespace Rentals.Api.Clients;

// Refit interfaces: each request attribute is a call through the client
// registered for the interface.
public interface IFleetApi
{
    [Get("/vehicles/{id}")]
    Task<Vehicle> GetVehicleAsync(string id);

    [Post("/vehicles/{id}/holds")]
    Task HoldAsync(string id, [Body] Hold hold);

    [Headers("Accept: application/json")]
    [Delete("/holds/{holdId}")]
    Task ReleaseAsync(string holdId);

    // No request attribute: no call.
    Task<string> DescribeAsync();
}

public static class Registration
{
    public static void AddClients(IServiceCollection services, IConfiguration config)
    {
        services.AddRefitClient<IFleetApi>()
            .ConfigureHttpClient(c => c.BaseAddress = new Uri(config["Fleet:BaseUrl"]!));
        services.AddHttpClient<PricingClient>()
            .ConfigureHttpClient(c => c.BaseAddress = new Uri("http://pricing:8080"));
        var billing = RestService.For<IBillingApi>("http://billing:5000");
    }
}
