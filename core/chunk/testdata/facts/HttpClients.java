package org.example.quotes;

import java.io.IOException;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.apache.hc.client5.http.classic.methods.HttpDelete;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;

public class QuoteClients {
    private static final String RATES = System.getenv("RATES_URL");
    private static final String LEDGER = System.getenv("LEDGER_URL");
    private final OkHttpClient http = new OkHttpClient();

    public String rate(String currency) throws IOException {
        Request req = new Request.Builder().url(RATES + "/rates/" + currency).header("Accept", "application/json").build();
        try (Response res = http.newCall(req).execute()) {
            return res.body().string();
        }
    }

    public void record(String json) throws IOException {
        RequestBody body = RequestBody.create(json, MediaType.get("application/json"));
        Request req = new Request.Builder().post(body).url(LEDGER + "/entries").build();
        http.newCall(req).execute().close();
    }

    public HttpGet history(String id) {
        return new HttpGet(LEDGER + "/entries/" + id);
    }

    public HttpPost settle() {
        return new HttpPost(LEDGER + "/settlements");
    }

    public HttpDelete cancel(String id) {
        return new HttpDelete(LEDGER + "/entries/" + id);
    }
}
