package org.example.depot;

import retrofit2.Call;
import retrofit2.Retrofit;
import retrofit2.converter.jackson.JacksonConverterFactory;
import retrofit2.http.*;

public interface ParcelApi {
    @GET("parcels/{id}")
    Call<Parcel> parcel(@Path("id") String id);

    @POST("/parcels")
    Call<Parcel> create(@Body Parcel p);

    @HTTP(method = "DELETE", path = "parcels/{id}", hasBody = true)
    Call<Void> cancel(@Path("id") String id, @Body String reason);

    @GET("https://status.carrierhub.io/health")
    Call<String> health();

    static ParcelApi connect() {
        return new Retrofit.Builder()
            .baseUrl(System.getenv("PARCELS_URL"))
            .addConverterFactory(JacksonConverterFactory.create())
            .build()
            .create(ParcelApi.class);
    }
}
