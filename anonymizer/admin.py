from django.contrib import admin

from anonymizer.models import Job, JobResult, Upload


@admin.register(Upload)
class UploadAdmin(admin.ModelAdmin):
    list_display = ["original_name", "owner", "size_bytes", "created_at"]
    readonly_fields = ["sha256", "metadata"]


class JobResultInline(admin.TabularInline):
    model = JobResult
    extra = 0


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "owner", "status", "created_at", "finished_at", "worker"]
    list_filter = ["status", "kind"]
    inlines = [JobResultInline]
