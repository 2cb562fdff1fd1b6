public class CartOptions
{
    public string RedisPassword { get; set; } = "RqCs2sHL6Hkh5M1";
    public void Configure(SmtpOptions options)
    {
        options.Password = "RqCs32xityVsDwC#";
    }
}
