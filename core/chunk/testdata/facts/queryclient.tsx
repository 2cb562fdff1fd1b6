import * as React from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { SearchClient } from "./search/client";

const queryClient = new QueryClient({
  defaultOptions: { queries: { refetchOnWindowFocus: false } },
});

// A hand-written HTTP client class of the app.
const search = new SearchClient("/api/search");

export function QueryProvider({ children }: { children: React.ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
