require 'sinatra'
require 'net/http'
require 'faraday'

# Addresses from the environment, with defaults.
CARRIER_URL = ENV.fetch('CARRIER_URL', 'http://carrier:8080')
TRACKING = ENV['TRACKING_URL'] || 'http://tracking:9000'

get '/quotes/:lane' do
  res = Net::HTTP.get_response(URI("#{CARRIER_URL}/lanes/#{params[:lane]}"))
  HTTParty.post("#{TRACKING}/events", body: { lane: params[:lane] }.to_json)
  res.body
end

post '/bookings' do
  conn = Faraday.new(url: ENV['LEDGER_URL'])
  conn.post('/entries', request.body.read)
  RestClient.get(CARRIER_URL + '/capacity')
  status 201
end

CACHE = Redis.new(url: ENV.fetch('REDIS_URL', 'redis://cache:6379/0'))

# Not calls: a hash's get, a local method named get.
settings = { 'a' => 1 }
settings.get('/x') if settings.respond_to?(:get)

Rails.application.routes.draw do
  get '/health', to: 'health#show'
  resources :consignments, only: [:index, :show, :create] do
    resources :shipments, except: [:destroy] do
      resources :labels, only: [:show]
    end
  end
  namespace :admin do
    resource :tariff, only: [:show, :update]
    post 'rebuild', to: 'index#rebuild'
  end
end
