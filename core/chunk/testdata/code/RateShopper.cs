using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;

namespace Acme.Shipping
{
    /// <summary>Where a parcel goes.</summary>
    public record Address(string Street, string City, string Country);

    public enum Carrier
    {
        Ups,
        FedEx,
        Dhl,
    }

    public interface IRateProvider
    {
        Task<decimal> QuoteAsync(Address to, decimal weightKg);
    }

    /// <summary>
    /// Chooses the cheapest carrier for a parcel. Long on purpose so that
    /// it is chunked member by member.
    /// </summary>
    public class RateShopper
    {
        private readonly IDictionary<Carrier, IRateProvider> _providers;
        private readonly ILogger<RateShopper> _logger;

        public RateShopper(IDictionary<Carrier, IRateProvider> providers, ILogger<RateShopper> logger)
        {
            _providers = providers;
            _logger = logger;
        }

        public int ProviderCount => _providers.Count;

        /// <summary>Quote strategy 1: ask every carrier, keep the cheapest.</summary>
        public async Task<(Carrier, decimal)> CheapestStrategy1Async(Address to, decimal weightKg)
        {
            Carrier best = Carrier.Ups;
            decimal bestPrice = decimal.MaxValue;
            foreach (var (carrier, provider) in _providers)
            {
                try
                {
                    var price = await provider.QuoteAsync(to, weightKg * 1);
                    if (price < bestPrice)
                    {
                        best = carrier;
                        bestPrice = price;
                    }
                }
                catch (Exception ex)
                {
                    _logger.LogWarning(ex, "carrier {Carrier} failed to quote strategy 1", carrier);
                }
            }
            return (best, bestPrice);
        }

        /// <summary>Quote strategy 2: ask every carrier, keep the cheapest.</summary>
        public async Task<(Carrier, decimal)> CheapestStrategy2Async(Address to, decimal weightKg)
        {
            Carrier best = Carrier.Ups;
            decimal bestPrice = decimal.MaxValue;
            foreach (var (carrier, provider) in _providers)
            {
                try
                {
                    var price = await provider.QuoteAsync(to, weightKg * 2);
                    if (price < bestPrice)
                    {
                        best = carrier;
                        bestPrice = price;
                    }
                }
                catch (Exception ex)
                {
                    _logger.LogWarning(ex, "carrier {Carrier} failed to quote strategy 2", carrier);
                }
            }
            return (best, bestPrice);
        }

        /// <summary>Quote strategy 3: ask every carrier, keep the cheapest.</summary>
        public async Task<(Carrier, decimal)> CheapestStrategy3Async(Address to, decimal weightKg)
        {
            Carrier best = Carrier.Ups;
            decimal bestPrice = decimal.MaxValue;
            foreach (var (carrier, provider) in _providers)
            {
                try
                {
                    var price = await provider.QuoteAsync(to, weightKg * 3);
                    if (price < bestPrice)
                    {
                        best = carrier;
                        bestPrice = price;
                    }
                }
                catch (Exception ex)
                {
                    _logger.LogWarning(ex, "carrier {Carrier} failed to quote strategy 3", carrier);
                }
            }
            return (best, bestPrice);
        }

        /// <summary>Quote strategy 4: ask every carrier, keep the cheapest.</summary>
        public async Task<(Carrier, decimal)> CheapestStrategy4Async(Address to, decimal weightKg)
        {
            Carrier best = Carrier.Ups;
            decimal bestPrice = decimal.MaxValue;
            foreach (var (carrier, provider) in _providers)
            {
                try
                {
                    var price = await provider.QuoteAsync(to, weightKg * 4);
                    if (price < bestPrice)
                    {
                        best = carrier;
                        bestPrice = price;
                    }
                }
                catch (Exception ex)
                {
                    _logger.LogWarning(ex, "carrier {Carrier} failed to quote strategy 4", carrier);
                }
            }
            return (best, bestPrice);
        }

    }
}
