namespace Acme.Payments;

/// <summary>
/// Talks to the card processor to hold and capture customer payments.
/// </summary>
public class CardAuthorizer
{
    private readonly HttpClient _http;

    public CardAuthorizer(HttpClient http) => _http = http;

    /// <summary>
    /// Asks the processor to hold the amount on the card without charging it yet.
    /// </summary>
    public async Task<string> AuthorizeAsync(string cardToken, long cents)
    {
        var resp = await _http.PostAsJsonAsync("/v1/authorizations", new { cardToken, cents });
        resp.EnsureSuccessStatusCode();
        return await resp.Content.ReadAsStringAsync();
    }

    /// <summary>
    /// Charges an amount that was held earlier, once the order has shipped.
    /// </summary>
    public async Task CaptureAsync(string authorizationId)
    {
        var resp = await _http.PostAsync($"/v1/authorizations/{authorizationId}/capture", null);
        resp.EnsureSuccessStatusCode();
    }

    /// <summary>
    /// Lets go of a hold on the card when the customer cancels before shipping.
    /// </summary>
    public async Task VoidAsync(string authorizationId)
    {
        var resp = await _http.DeleteAsync($"/v1/authorizations/{authorizationId}");
        resp.EnsureSuccessStatusCode();
    }
}
