package org.example.media;

public class Thumbnail {
    private final Builder builder = new Builder();

    public Thumbnail at(String path) {
        builder.url("/thumbs/" + path).width(200);
        return this;
    }
}
