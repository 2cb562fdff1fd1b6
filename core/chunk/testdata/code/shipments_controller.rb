# frozen_string_literal: true

require 'json'
require_relative '../services/carrier_client'

module Freight
  # Shipments of a consignment, and the labels printed for them.
  class ShipmentsController < ApplicationController
    before_action :load_consignment

    # GET /consignments/:consignment_id/shipments
    def index
      render json: @consignment.shipments.order(:created_at)
    end

    # POST /consignments/:consignment_id/shipments
    #
    # Books a slot with the carrier first: a shipment without a slot is
    # never saved.
    def create
      slot = CarrierClient.new.book(@consignment.origin, @consignment.destination)
      shipment = @consignment.shipments.create!(shipment_params.merge(slot_id: slot.id))
      render json: shipment, status: :created
    rescue CarrierClient::NoCapacity => e
      render json: { error: e.message }, status: :conflict
    end

    def self.label_format
      ENV.fetch('LABEL_FORMAT', 'zpl')
    end

    private

    def load_consignment
      @consignment = Consignment.find(params[:consignment_id])
    end

    def shipment_params
      params.require(:shipment).permit(:weight_kg, :pieces)
    end
  end
end
