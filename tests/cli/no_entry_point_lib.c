/* A shared library without hlx_register_host_functions, for the error
 * hlx --custom-call-lib gives when the entry point is missing. */
int hlx_test_not_an_entry_point(void);
int hlx_test_not_an_entry_point(void) { return 0; }
