/* Parameters are construct-only properties of the tracer, and GST_TRACERS'
 * "gpuprof(key=value,...)" lands in them: what the user wrote is what
 * g_object_get() reads back, in the spellings of the parameters. */
#include "gpuprof-test-util.h"

#define TRACERS "gpuprof(report=stdout,nvtx=no,cupti=false,trace-max-mb=5," \
  "trace-elements=\"src|sink\",cupti-lib=/opt/cupti/libcupti.so)"

static const gchar *const names[] = {
  "nvtx", "report", "trace", "trace-elements", "trace-max-mb", "stats",
  "cupti", "cupti-lib",
};

GST_START_TEST (test_every_parameter_is_a_construct_only_property)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (gpuprof_test_tracer ());
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GParamSpec *spec = g_object_class_find_property (klass, names[i]);

    fail_unless (spec != NULL, "no property '%s'", names[i]);
    fail_unless (spec->flags & G_PARAM_CONSTRUCT_ONLY, "%s", names[i]);
    fail_unless (spec->flags & G_PARAM_READABLE, "%s", names[i]);
    fail_unless (g_param_spec_get_blurb (spec)
        && *g_param_spec_get_blurb (spec), "'%s' has no blurb", names[i]);
  }
}

GST_END_TEST;

GST_START_TEST (test_gst_tracers_params_land_in_the_properties)
{
  GstTracer *tracer = gpuprof_test_tracer ();
  gchar *report, *trace, *elements, *stats, *lib;
  gboolean nvtx;
  guint max_mb;
  gint cupti;
  GEnumClass *modes;

  g_object_get (tracer, "report", &report, "nvtx", &nvtx, "trace", &trace,
      "trace-elements", &elements, "trace-max-mb", &max_mb, "stats", &stats,
      "cupti", &cupti, "cupti-lib", &lib, NULL);
  fail_unless_equals_string (report, "stdout");
  fail_unless (!nvtx);
  fail_unless (trace == NULL, "trace not given, yet '%s'", trace);
  fail_unless_equals_string (elements, "src|sink");
  fail_unless_equals_int (max_mb, 5);
  fail_unless (stats == NULL);
  fail_unless_equals_string (lib, "/opt/cupti/libcupti.so");

  /* cupti is an enum whose nicks are the spellings of the parameter */
  modes = g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE
      (g_object_class_find_property (G_OBJECT_GET_CLASS (tracer), "cupti")));
  fail_unless_equals_string (g_enum_get_value (modes, cupti)->value_nick,
      "off");
  fail_unless (g_enum_get_value_by_nick (modes, "auto") != NULL);
  fail_unless (g_enum_get_value_by_nick (modes, "on") != NULL);
  g_type_class_unref (modes);

  g_free (report);
  g_free (elements);
  g_free (lib);
}

GST_END_TEST;

static Suite *
params_props_suite (void)
{
  Suite *s = suite_create ("gpuprof-params-props");
  TCase *tc = tcase_create ("params");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_parameter_is_a_construct_only_property);
  tcase_add_test (tc, test_gst_tracers_params_land_in_the_properties);
  return s;
}

GPUPROF_TEST_MAIN (params_props, "gpuprof-params-props", TRACERS);
