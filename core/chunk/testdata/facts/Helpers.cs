using System.Net.Http;
using System.Threading.Tasks;

namespace Harbor.Pilots;

public class TideClient
{
    private readonly HttpClient _http;

    public TideClient(HttpClient http) => _http = http;

    private Task<string> Fetch(string path) => _http.GetStringAsync(path);

    public Task<string> Today() => Fetch("/tides/today");

    public Task<string> ForPort(string port) => Fetch($"/tides/ports/{port}");
}
