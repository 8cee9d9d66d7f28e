import { Checkbox, Space, Typography } from 'antd';
import type { useTranslation } from 'react-i18next';
import { LAYER_GROUPS, type LayerSwitches } from './layers';

/** The map's layer switch, over its top-left corner. */
export function LayerSwitch({
  switches,
  onChange,
  t,
}: {
  switches: LayerSwitches;
  onChange: (switches: LayerSwitches) => void;
  t: ReturnType<typeof useTranslation>['t'];
}) {
  return (
    <fieldset
      data-testid="gps-layers"
      aria-label={t('gps.layers')}
      style={{
        margin: 0,
        border: 'none',
        position: 'absolute',
        top: 8,
        left: 8,
        zIndex: 1,
        background: 'rgba(255,255,255,0.92)',
        borderRadius: 6,
        padding: '6px 10px',
        boxShadow: '0 1px 4px rgba(0,0,0,0.2)',
      }}
    >
      <Typography.Text strong style={{ fontSize: 12 }}>
        {t('gps.layers')}
      </Typography.Text>
      <Space direction="vertical" size={0} style={{ display: 'flex' }}>
        {LAYER_GROUPS.map((group) => (
          <Checkbox
            key={group}
            checked={switches[group]}
            onChange={(event) => onChange({ ...switches, [group]: event.target.checked })}
          >
            {t(`gps.layer.${group}`)}
          </Checkbox>
        ))}
      </Space>
    </fieldset>
  );
}
