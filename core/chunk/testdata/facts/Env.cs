namespace Shop.Basket;

public static class Env
{
    public static string Catalog() =>
        Environment.GetEnvironmentVariable("CATALOG_URL") ?? "http://catalog:8080";

    public static string Redis(IConfiguration config) =>
        config["REDIS_HOST"] ?? "redis:6379";
}
