package shop.orders;

import org.springframework.beans.factory.annotation.Value;

public class Env {
    @Value("http://${PRICES_ADDR:prices:8080}/prices")
    private String pricesUri;

    private final String stockUrl = String.format("http://%s/stock/", getenv("STOCK_ENDPOINT", "stock"));

    public String jdbc() {
        return String.format("jdbc:mysql://%s/orders", System.getenv("DB_HOST") == null ? "mysql" : System.getenv("DB_HOST"));
    }

    private String getenv(String key, String def) {
        String v = System.getenv(key);
        return v == null ? def : v;
    }
}
