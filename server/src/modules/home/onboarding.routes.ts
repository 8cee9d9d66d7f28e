import { homeApi } from '@shared/api/home';
import { defineRoute } from '../../platform/http/routes';
import * as onboarding from './onboarding.service';

export function onboardingRoutes(deps: onboarding.OnboardingDeps) {
  return [
    defineRoute({
      ...homeApi.getOnboarding,
      handler: async ({ auth }) => ({ status: 200, body: await onboarding.getOnboarding(deps, auth) }),
    }),
    defineRoute({
      ...homeApi.dismissOnboarding,
      access: 'admin',
      handler: async ({ auth }) => {
        await onboarding.dismissOnboarding(deps, auth);
        return { status: 204 };
      },
    }),
  ];
}
