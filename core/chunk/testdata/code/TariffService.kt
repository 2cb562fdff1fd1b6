@file:JvmName("Tariffs")

package com.fleetco.tolls.tariff

import java.time.Duration
import java.time.Instant
import org.springframework.stereotype.Service

/** A vehicle class a tariff charges by. */
enum class VehicleClass { CAR, VAN, TRUCK }

/**
 * A tariff: the price of one passage for each vehicle class, valid
 * from a moment on.
 */
data class Tariff(val id: String, val validFrom: Instant, val cents: Map<VehicleClass, Long>)

typealias TariffId = String

interface TariffStore {
    fun current(at: Instant): Tariff?
    fun save(t: Tariff)
}

@Service
class TariffService(private val store: TariffStore, private val clock: () -> Instant) {
    private val graceWindow: Duration = Duration.ofMinutes(15)

    /**
     * Price of a passage at a moment. A passage within the grace
     * window after a tariff change is charged at the old tariff, so that
     * drivers already on the road are not surprised.
     */
    fun priceAt(vehicle: VehicleClass, at: Instant): Long {
        val tariff = store.current(at) ?: throw IllegalStateException("no tariff at $at")
        val previous = store.current(tariff.validFrom.minusMillis(1))
        if (previous != null && at.isBefore(tariff.validFrom.plus(graceWindow))) {
            return previous.cents[vehicle] ?: error("vehicle class $vehicle has no price")
        }
        return tariff.cents[vehicle] ?: error("vehicle class $vehicle has no price")
    }

    /** Publishes a new tariff; it takes effect at validFrom. */
    fun publish(t: Tariff) {
        require(t.validFrom.isAfter(clock())) { "a tariff cannot start in the past" }
        require(t.cents.keys.containsAll(VehicleClass.values().toList())) { "every vehicle class needs a price" }
        store.save(t)
    }

    companion object {
        const val DEFAULT_CURRENCY = "EUR"

        fun free(id: String, from: Instant) = Tariff(id, from, VehicleClass.values().associateWith { 0L })
    }
}

object Rounding {
    fun toCents(euros: Double): Long = Math.round(euros * 100)
}

fun Tariff.isFree(): Boolean = cents.values.all { it == 0L }
