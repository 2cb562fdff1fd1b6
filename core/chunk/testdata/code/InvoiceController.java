package com.acme.billing;

import java.math.BigDecimal;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Invoices of a customer. */
@RestController
public class InvoiceController {
    private final InvoiceRepository repository;

    public InvoiceController(InvoiceRepository repository) {
        this.repository = repository;
    }

    /** Endpoint 1: the invoices of a customer, with totals. */
    @GetMapping("/customers/{customerId}/invoices/v1")
    public List<InvoiceView> listInvoicesV1(@PathVariable String customerId) {
        List<Invoice> invoices = repository.findByCustomer(customerId);
        BigDecimal total = BigDecimal.ZERO;
        for (Invoice invoice : invoices) {
            if (invoice.isPaid()) {
                total = total.add(invoice.getAmount());
            }
        }
        return invoices.stream()
            .map(i -> new InvoiceView(i.getId(), i.getAmount(), i.isPaid(), 1))
            .toList();
    }

    /** Endpoint 2: the invoices of a customer, with totals. */
    @GetMapping("/customers/{customerId}/invoices/v2")
    public List<InvoiceView> listInvoicesV2(@PathVariable String customerId) {
        List<Invoice> invoices = repository.findByCustomer(customerId);
        BigDecimal total = BigDecimal.ZERO;
        for (Invoice invoice : invoices) {
            if (invoice.isPaid()) {
                total = total.add(invoice.getAmount());
            }
        }
        return invoices.stream()
            .map(i -> new InvoiceView(i.getId(), i.getAmount(), i.isPaid(), 2))
            .toList();
    }

    /** Endpoint 3: the invoices of a customer, with totals. */
    @GetMapping("/customers/{customerId}/invoices/v3")
    public List<InvoiceView> listInvoicesV3(@PathVariable String customerId) {
        List<Invoice> invoices = repository.findByCustomer(customerId);
        BigDecimal total = BigDecimal.ZERO;
        for (Invoice invoice : invoices) {
            if (invoice.isPaid()) {
                total = total.add(invoice.getAmount());
            }
        }
        return invoices.stream()
            .map(i -> new InvoiceView(i.getId(), i.getAmount(), i.isPaid(), 3))
            .toList();
    }

    /** Endpoint 4: the invoices of a customer, with totals. */
    @GetMapping("/customers/{customerId}/invoices/v4")
    public List<InvoiceView> listInvoicesV4(@PathVariable String customerId) {
        List<Invoice> invoices = repository.findByCustomer(customerId);
        BigDecimal total = BigDecimal.ZERO;
        for (Invoice invoice : invoices) {
            if (invoice.isPaid()) {
                total = total.add(invoice.getAmount());
            }
        }
        return invoices.stream()
            .map(i -> new InvoiceView(i.getId(), i.getAmount(), i.isPaid(), 4))
            .toList();
    }

    /** Endpoint 5: the invoices of a customer, with totals. */
    @GetMapping("/customers/{customerId}/invoices/v5")
    public List<InvoiceView> listInvoicesV5(@PathVariable String customerId) {
        List<Invoice> invoices = repository.findByCustomer(customerId);
        BigDecimal total = BigDecimal.ZERO;
        for (Invoice invoice : invoices) {
            if (invoice.isPaid()) {
                total = total.add(invoice.getAmount());
            }
        }
        return invoices.stream()
            .map(i -> new InvoiceView(i.getId(), i.getAmount(), i.isPaid(), 5))
            .toList();
    }

    record InvoiceView(String id, BigDecimal amount, boolean paid, int version) {}
}
