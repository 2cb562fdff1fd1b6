package com.acme.freight;

import java.util.Map;

/**
 * Works out delivery prices from parcel weight and destination zone.
 */
public class RateCalculator {
    private final Map<String, Integer> zoneCents;

    public RateCalculator(Map<String, Integer> zoneCents) {
        this.zoneCents = zoneCents;
    }

    /**
     * Returns the price of sending a parcel of the given weight to a zone.
     */
    public int priceCents(String zone, double kilograms) {
        int base = zoneCents.getOrDefault(zone, 1500);
        return base + (int) Math.ceil(Math.max(0, kilograms - 1)) * 250;
    }

    /**
     * Tells whether a parcel is too heavy for the standard courier service.
     */
    public boolean needsFreight(double kilograms) {
        return kilograms > 30;
    }

    /**
     * Gives the number of working days a delivery to the zone usually takes.
     */
    public int transitDays(String zone) {
        return zone.startsWith("EU") ? 3 : 7;
    }
}
