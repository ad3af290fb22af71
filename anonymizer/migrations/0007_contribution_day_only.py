"""The contribution's fine timestamp goes; the day becomes required (the second half of 0006)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("anonymizer", "0006_contribution_day")]

    operations = [
        migrations.RemoveField(model_name="preferencecontribution", name="created_at"),
        migrations.AlterField(model_name="preferencecontribution", name="received_on",
                              field=models.DateField(help_text="The day (UTC) it arrived; never a finer time.")),
        migrations.AlterModelOptions(name="preferencecontribution", options={"ordering": ["received_on", "id"]}),
    ]
