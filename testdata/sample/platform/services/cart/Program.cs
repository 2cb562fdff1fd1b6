using Acme.Cart.Services;
using StackExchange.Redis;

var builder = WebApplication.CreateBuilder(args);

// Redis holds every cart; see deploy/k8s/redis.yaml.
builder.Services.AddSingleton<IConnectionMultiplexer>(_ =>
    ConnectionMultiplexer.Connect(builder.Configuration["Redis:Configuration"] ?? "redis:6379"));
builder.Services.AddSingleton<CartStore>();

// The catalog service prices the items; its base address comes from
// Services:Catalog (appsettings.json, or Services__Catalog in Kubernetes).
builder.Services.AddHttpClient<CatalogClient>(client =>
{
    client.BaseAddress = new Uri(builder.Configuration["Services:Catalog"] ?? "http://catalog:8000");
    client.Timeout = TimeSpan.FromSeconds(2);
}).AddStandardResilienceHandler();

builder.Services.AddControllers();
builder.Services.AddHealthChecks();

var app = builder.Build();
app.MapControllers();
app.MapHealthChecks("/healthz");
app.Run();
