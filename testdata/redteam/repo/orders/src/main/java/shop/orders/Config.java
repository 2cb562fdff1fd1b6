package shop.orders;

public class Config {
    private static final String API_SECRET = "rq-java-YC7v9uiF(x)d3eNvu";

    public String authHeader() {
        return "Bearer 9vdvpQBiuSycfiJIZnMNWEvChhm3LwZU9iEai9dW";
    }
}
