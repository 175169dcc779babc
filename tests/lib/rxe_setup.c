// SPDX-License-Identifier: MIT
/* The two rxe devices of tests/lib/rxe.c, for the VM checks written as scripts. */
#include <stdio.h>

#include "rxe.h"

int main(void)
{
	if (rxe_two_devices()) {
		fprintf(stderr,
			"rxe_setup: " RXE_DEVICE " and " RXE_DEVICE_B " could not be set up\n");
		return 1;
	}
	return 0;
}
