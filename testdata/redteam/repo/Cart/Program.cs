var builder = WebApplication.CreateBuilder(args);
var db = "Host=cart-db;Username=cart;Pwd=RqCsPLDELHsV;x;Database=cart";
var bus = "Endpoint=sb://rq-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=mXy6uWS6XnIhGbu4YlBItpjJpjy0RXPgpOQdaZOkXo4=";
const string ClaudeKey = "sk-ant-api03-rfFDsTKgHdRXyOKl5zx_XmXjnTYeiuW9qtCcPWwmFW49h3x1KTfUutdSpQ9wiRE2P3pswGtOlMe-MvEQSmfLdzOqAF_D0AA";
builder.Services.AddSingleton(new CartStore(db));
var smtp = new SmtpClient("smtp.rq.example") { Credentials = new NetworkCredential("cart", "RqNetCredQ4w7") };
