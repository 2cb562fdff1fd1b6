from django.urls import include, path, re_path

from shop.orders import views
from shop.orders.api import OrderDetail

order_patterns = [
    path("", views.order_detail, name="order-detail"),
    path("cancel/", views.cancel_order, name="order-cancel"),
    re_path(r"^invoice/(?P<fmt>pdf|html)/$", views.invoice, name="order-invoice"),
]

urlpatterns = [
    path("orders/", views.order_list, name="order-list"),
    path("orders/<int:order_id>/", include(order_patterns)),
    path("api/orders/<uuid:pk>/", OrderDetail.as_view(), name="api-order"),
    re_path(r"^archive/(?P<year>\d{4})/(\d{2})/$", views.archive),
    path("accounts/", include("shop.accounts.urls")),
]

urlpatterns += [
    path("healthz", views.health),
]
