using Confluent.Kafka;
using Grpc.Net.Client;
using Microsoft.EntityFrameworkCore;
using RabbitMQ.Client;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddDbContext<OrdersDb>(o => o.UseNpgsql(builder.Configuration.GetConnectionString("Orders")));
builder.Services.AddHttpClient("pricing", c => c.BaseAddress = new Uri(Environment.GetEnvironmentVariable("PRICING_URL") ?? "http://pricing"));

var app = builder.Build();
var api = app.MapGroup("/api");
api.MapGet("/orders/{id:int}", (int id) => Results.Ok(id));
app.MapPost("/orders", CreateOrder);
app.MapGrpcService<InventoryService>();
app.Run();

public class Notifier
{
    private readonly HttpClient _http = new HttpClient();

    public async Task NotifyAsync(IProducer<string, string> producer, IModel channel, string orderId)
    {
        await _http.PostAsJsonAsync($"http://mailer/send/{orderId}", new { orderId });
        await producer.ProduceAsync("orders.notified", new Message<string, string> { Value = orderId });
        channel.BasicPublish("", "mail.sent", null, Array.Empty<byte>());
        var channel2 = GrpcChannel.ForAddress("http://inventory:5001");
        var client = new Inventory.InventoryClient(channel2);
    }
}

[ApiController]
[Route("api/[controller]")]
public class InvoicesController : ControllerBase
{
    [HttpGet("{id}")]
    public IActionResult Get(string id) => Ok(id);

    [HttpDelete]
    public IActionResult Purge() => NoContent();
}
