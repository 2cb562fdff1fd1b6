package org.example.media;

public class Thumbnail {
    private final Builder builder = new Builder();

    private final java.util.Map<String, String> labels = new java.util.HashMap<>();

    public Thumbnail at(String path) {
        builder.url("/thumbs/" + path).width(200);
        labels.put("source_path", path);
        return this;
    }
}
