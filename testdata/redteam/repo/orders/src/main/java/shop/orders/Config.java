package shop.orders;

public class Config {
    private static final String API_SECRET = "rq-java-YC7v9uiF(x)d3eNvu";

    public String authHeader() {
        return "Bearer 9vdvpQBiuSycfiJIZnMNWEvChhm3LwZU9iEai9dW";
    }

    public DataSource dataSource() {
        HikariDataSource ds = new HikariDataSource();
        ds.setUsername("orders");
        ds.setPassword("RqJavaSetter7q2x");
        return ds;
    }
}
