from __future__ import annotations

from django.urls import path

from . import views

app_name = "publications"

urlpatterns = [
    path("works/<int:pk>/", views.work_detail, name="work-detail"),
    path("topics/<int:pk>/", views.topic_detail, name="topic-detail"),
]
